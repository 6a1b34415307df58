#!/usr/bin/env python3
"""Generate the data set that scripts/bench loads.

    bench/gen-students.py OUT_DIR ROWS [ROWS ...]

Writes, deterministically (fixed seed, standard library only):

    OUT_DIR/campuses.csv                 the campuses the students reference
    OUT_DIR/ministries.csv               four to six ministries per campus
    OUT_DIR/students-<ROWS>.csv          what `crubatch import students` reads, as staff export it:
                                         names with accents (some decomposed, NFD) and apostrophes,
                                         stray spaces, mixed-case emails and codes, phones in a
                                         dozen formats (some with extensions), sex and school year
                                         written many ways, and a `notes` column (not part of the
                                         kind: crubatch ignores it) holding quoted text with commas,
                                         quotes and newlines
    OUT_DIR/students-<ROWS>-nonotes.csv  the same file without the notes column (to show what
                                         ignoring an unknown column costs)
    OUT_DIR/students-<ROWS>-normalized.csv
                                         the same rows already normalised the way crubatch stores
                                         them (lower-case email, E.164 phone, canonical sex, school
                                         year 1-5, lower-case codes, NFC text, deduplicated
                                         ministries), for the hand-written psql pipeline, which
                                         does no normalisation of its own

Row i is the same in every file whatever ROWS is, so the small file is a prefix of the large one.
Files are written under a temporary name and renamed when complete.
"""

from __future__ import annotations

import random
import sys
import unicodedata
from pathlib import Path

SEED = 20260915

CAMPUS_NAMES = [
    ("calpoly", "Cal Poly San Luis Obispo", "San Luis Obispo"), ("cuesta", "Cuesta College", "San Luis Obispo"),
    ("ucsb", "UC Santa Barbara", "Santa Barbara"), ("sbcc", "Santa Barbara City College", "Santa Barbara"),
    ("csumb", "CSU Monterey Bay", "Seaside"), ("ucsc", "UC Santa Cruz", "Santa Cruz"),
    ("sjsu", "San José State", "San José"), ("stanford", "Stanford University", "Stanford"),
    ("ucb", "UC Berkeley", "Berkeley"), ("sfsu", "San Francisco State", "San Francisco"),
    ("usf", "University of San Francisco", "San Francisco"), ("ucd", "UC Davis", "Davis"),
    ("csus", "Sacramento State", "Sacramento"), ("fresno-state", "Fresno State", "Fresno"),
    ("ucla", "UCLA", "Los Angeles"), ("usc", "University of Southern California", "Los Angeles"),
    ("lmu", "Loyola Marymount", "Los Angeles"), ("csulb", "Cal State Long Beach", "Long Beach"),
    ("uci", "UC Irvine", "Irvine"), ("ucsd", "UC San Diego", "La Jolla"), ("sdsu", "San Diego State", "San Diego"),
    ("ucr", "UC Riverside", "Riverside"), ("cpp", "Cal Poly Pomona", "Pomona"), ("chico-state", "Chico State", "Chico"),
    ("humboldt", "Cal Poly Humboldt", "Arcata"), ("uop", "University of the Pacific", "Stockton"),
    ("scu", "Santa Clara University", "Santa Clara"), ("pepperdine", "Pepperdine University", "Malibu"),
    ("csun", "CSU Northridge", "Northridge"), ("csuf", "Cal State Fullerton", "Fullerton"),
    ("ucm", "UC Merced", "Merced"), ("westmont", "Westmont College", "Santa Barbara"),
    ("biola", "Biola University", "La Mirada"), ("apu", "Azusa Pacific", "Azusa"),
    ("usd", "University of San Diego", "San Diego"), ("csusb", "CSU San Bernardino", "San Bernardino"),
    ("sonoma-state", "Sonoma State", "Rohnert Park"), ("csueb", "Cal State East Bay", "Hayward"),
    ("csub", "CSU Bakersfield", "Bakersfield"), ("stan-state", "Stanislaus State", "Turlock"),
]
MINISTRY_KINDS = [
    ("cru", "Cru"), ("epic", "Epic Movement"), ("destino", "Destino"), ("bridges", "Bridges International"),
    ("greek", "Greek Cru"), ("athletes", "Athletes in Action"),
]

FIRST = [
    "José", "María", "Zoë", "Chloé", "Renée", "André", "Noémie", "Søren", "Björn", "Zoé", "Inês", "João",
    "Dagný", "Łukasz", "Ana", "Luca", "Ji-woo", "Minh", "Thảo", "Nguyễn", "Seo-yeon", "Hiroshi", "Aarav",
    "Priya", "Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "Mateo", "Isabella", "Lucas",
    "Mia", "Levi", "Amelia", "Ezra", "Harper", "Asher", "Evelyn", "Leilani", "Makoa", "Kai", "Siobhán",
    "Seán", "Aoife", "Niamh", "D'Andre", "Ja'Marcus", "De'Shawn", "Anne-Marie", "Mary Kate", "Zoey",
    "Grace", "Caleb", "Hannah", "Samuel", "Abigail", "Daniel", "Naomi", "Josiah", "Ruth", "Isaiah",
]
LAST = [
    "O'Brien", "O'Connor", "D'Angelo", "DeLaCruz", "de la Cruz", "García", "Hernández", "López", "Martínez",
    "Muñoz", "Peña", "Brontë", "Müller", "Schröder", "Gómez", "Nuñez", "Nguyễn", "Trần", "Lê", "Phạm", "Kim",
    "Park", "Lee", "Choi", "Jung", "Tanaka", "Yamamoto", "Patel", "Shah", "Singh", "Smith", "Johnson",
    "Williams", "Brown", "Jones", "Miller", "Davis", "Wilson", "Anderson", "Taylor", "Thomas", "Moore",
    "Jackson", "Martin", "Thompson", "White", "Harris", "Clark", "Lewis", "Robinson", "Walker", "Young",
    "Allen", "King", "Wright", "Scott", "Kahananui", "Akana", "Van der Berg", "MacDonald", "McAllister",
    "Smith-Jones", "St. John", "Dubois", "Lefèvre", "Côté", "Gagné", "Bélanger", "Ó Súilleabháin",
]
DOMAINS = ["gmail.com", "icloud.com", "yahoo.com", "outlook.com", "hotmail.com", "calpoly.edu", "ucsb.edu",
           "ucla.edu", "stanford.edu", "berkeley.edu", "sjsu.edu", "uci.edu", "ucsd.edu"]
AREA_CODES = ["805", "559", "408", "415", "650", "213", "310", "619", "916", "510", "661", "707", "714", "949",
              "818", "909", "951", "831", "209", "530"]
NOTES = [
    "Met at the welcome BBQ, interested in a men's group",
    "Prefers texts, not calls",
    "Came to Cru Weekly twice; asked about \"Summer Mission\" in Thailand",
    "Transfer student, lives off campus, drives",
    "Allergic to peanuts, shellfish",
    "Wants to lead a Bible study next quarter",
    "Roommate of another student; both came to fall retreat",
    "Asked about rides to church on Sundays, Tuesdays",
    "International student (exchange), from Lyon, France",
    "Said: \"I'll think about it\" — follow up in a week",
]

SEX_RAW = {"male": ["male", "Male", "M", "m", "man", "1"], "female": ["female", "Female", "F", "f", "woman", "2"]}
YEAR_RAW = {1: ["1", "freshman", "Freshman", "1st", "first"], 2: ["2", "sophomore", "Sophomore", "2nd"],
            3: ["3", "junior", "Junior", "3rd"], 4: ["4", "senior", "Senior", "4th"], 5: ["5", "fifth", "5th", "grad"]}


def ascii_fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if c.isascii() and (c.isalnum() or c in ".-")).lower()


def csv_cell(value: str) -> str:
    if any(c in value for c in ',"\r\n'):
        return '"' + value.replace('"', '""') + '"'
    return value


def csv_line(cells: list[str]) -> str:
    return ",".join(csv_cell(c) for c in cells) + "\r\n"


def campuses() -> list[tuple[str, str, str]]:
    return CAMPUS_NAMES


def ministries() -> list[tuple[str, str, str]]:
    rows = []
    for index, (campus, name, _) in enumerate(CAMPUS_NAMES):
        count = 4 + index % 3
        for kind, label in MINISTRY_KINDS[:count]:
            rows.append((f"{kind}-{campus}", f"{label} {name}", campus))
    return rows


def phone(rng: random.Random) -> tuple[str, str | None]:
    """A phone as staff type it, and its E.164 form (None when blank)."""
    roll = rng.random()
    if roll < 0.08:
        return "", None
    area = rng.choice(AREA_CODES)
    exchange = f"{rng.randint(200, 999)}"
    line = f"{rng.randint(0, 9999):04d}"
    e164 = f"+1{area}{exchange}{line}"
    formats = [
        f"({area}) {exchange}-{line}", f"{area}-{exchange}-{line}", f"{area}.{exchange}.{line}",
        f"{area}{exchange}{line}", f"+1 {area} {exchange} {line}", f"1-{area}-{exchange}-{line}",
        f"+1{area}{exchange}{line}", f"{area} {exchange} {line}", f" ({area}){exchange}-{line} ",
    ]
    if roll < 0.11:
        extension = str(rng.randint(1, 999))
        text = rng.choice([f"{area}-{exchange}-{line} x{extension}", f"({area}) {exchange}-{line} ext. {extension}",
                           f"{area}.{exchange}.{line} #{extension}"])
        return text, f"{e164};ext={extension}"
    if roll < 0.13:
        country = rng.choice(["44", "33", "49", "82", "81", "52"])
        digits = str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(rng.randint(8, 9)))
        return f"+{country} {digits[:3]} {digits[3:6]} {digits[6:]}", f"+{country}{digits}"
    return rng.choice(formats), e164


def student(i: int, ministry_codes: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    rng = random.Random(SEED * 1_000_003 + i)
    first, last = rng.choice(FIRST), rng.choice(LAST)
    local = f"{ascii_fold(first)}.{ascii_fold(last).replace('.', '')}{i}"
    email = f"{local}@{rng.choice(DOMAINS)}"
    raw_email = email
    if rng.random() < 0.15:
        raw_email = local.capitalize() + "@" + email.split("@")[1].upper()
    raw_first, raw_last = first, last
    if rng.random() < 0.03:
        raw_first = unicodedata.normalize("NFD", first)
        raw_last = unicodedata.normalize("NFD", last)
    if rng.random() < 0.03:
        raw_first = " " + raw_first
        raw_last = raw_last + " "
    raw_phone, norm_phone = phone(rng)
    sex_roll = rng.random()
    if sex_roll < 0.1:
        raw_sex, norm_sex = "", None
    else:
        norm_sex = "male" if sex_roll < 0.55 else "female"
        raw_sex = rng.choice(SEX_RAW[norm_sex])
    year = rng.randint(1, 5)
    raw_year = rng.choice(YEAR_RAW[year]) if rng.random() < 0.95 else ""
    norm_year = str(year) if raw_year else None
    grad = str(2025 + 5 - year) if rng.random() < 0.7 else ""
    campus = CAMPUS_NAMES[min(int(rng.paretovariate(1.2)) - 1, len(CAMPUS_NAMES) - 1)][0] if rng.random() < 0.5 \
        else rng.choice(CAMPUS_NAMES)[0]
    raw_campus = campus.upper() if rng.random() < 0.05 else campus
    codes = ministry_codes[campus]
    chosen = rng.sample(codes, rng.choice([0, 1, 1, 1, 2, 2, 3]))
    raw_ministries = (";" if rng.random() < 0.8 else "; ").join(chosen)
    if chosen and rng.random() < 0.02:
        raw_ministries += ";" + chosen[0].upper()  # a repeat, in other case: stored once
    norm_ministries = ";".join(chosen)
    note_roll = rng.random()
    if note_roll < 0.55:
        notes = ""
    elif note_roll < 0.9:
        notes = rng.choice(NOTES)
    else:
        notes = rng.choice(NOTES) + "\n" + rng.choice(NOTES) + ",\nthen: " + rng.choice(NOTES)
    raw = [raw_email, raw_first, raw_last, raw_phone, raw_sex, raw_year, grad, raw_campus, raw_ministries, notes]
    normalized = [email, first, last, norm_phone or "", norm_sex or "", norm_year or "", grad, campus,
                  norm_ministries, notes]
    return raw, normalized


HEADER = ["email", "first_name", "last_name", "phone", "sex", "school_year", "grad_year", "campus", "ministries",
          "notes"]


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    sizes = sorted({int(n) for n in sys.argv[2:]})
    out.mkdir(parents=True, exist_ok=True)

    with open(out / "campuses.csv", "w", encoding="utf-8", newline="") as f:
        f.write(csv_line(["code", "name", "city", "state", "country", "timezone"]))
        for code, name, city in campuses():
            f.write(csv_line([code, name, city, "CA", "US", "America/Los_Angeles"]))
    ministry_codes: dict[str, list[str]] = {}
    with open(out / "ministries.csv", "w", encoding="utf-8", newline="") as f:
        f.write(csv_line(["code", "name", "campus", "description"]))
        for code, name, campus in ministries():
            ministry_codes.setdefault(campus, []).append(code)
            f.write(csv_line([code, name, campus, f"{name}: weekly meetings, community groups, retreats"]))

    variants = ["", "-nonotes", "-normalized"]
    files = []
    for size in sizes:
        handles = [open(out / f"students-{size}{v}.csv.tmp", "w", encoding="utf-8", newline="") for v in variants]
        handles[0].write(csv_line(HEADER))
        handles[1].write(csv_line(HEADER[:-1]))
        handles[2].write(csv_line(HEADER))
        files.append((size, handles))
    for i in range(max(sizes)):
        raw_row, norm_row = student(i, ministry_codes)
        texts = [csv_line(raw_row), csv_line(raw_row[:-1]), csv_line(norm_row)]
        for size, handles in files:
            if i < size:
                for handle, text in zip(handles, texts):
                    handle.write(text)
    for size, handles in files:
        for handle, v in zip(handles, variants):
            handle.close()
            Path(handle.name).rename(out / f"students-{size}{v}.csv")

if __name__ == "__main__":
    main()
