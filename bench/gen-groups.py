#!/usr/bin/env python3
"""Generate the groups, joins and questionnaire answers that scripts/bench's notify and place lines use.

    bench/gen-groups.py OUT_DIR GROUPS JOINS ANSWERS

Reads OUT_DIR/campuses.csv and OUT_DIR/ministries.csv (bench/gen-students.py writes them) and writes,
deterministically (fixed seed, standard library only):

    OUT_DIR/groups-<GROUPS>/leaders.csv      one leader per group (students on the group's campus)
    OUT_DIR/groups-<GROUPS>/groups.csv       GROUPS community groups spread over the ministries: a
                                             weekday evening, an audience (mixed or one school year),
                                             men, women or mixed, capacity 15-40 or none
    OUT_DIR/notify-<JOINS>/                  the same leaders and groups, JOINS students and one
                                             membership each (`import --dir`): JOINS pending
                                             notifications, one per join (one leader per group)
    OUT_DIR/answers-<ANSWERS>.csv            "Get Involved" answers for `place`, as Google Forms
                                             exports them: campus and ministries by name or code,
                                             sex and school year written many ways, availability in
                                             the forms the README lists (a few unreadable, a few
                                             for times no group meets)
"""

from __future__ import annotations

import csv
import random
import sys
from pathlib import Path

from generated import FIRST, LAST, phone, write_csv

SEED = 20261122

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Sunday"]
DAY_SHORT = {"Monday": "Mon", "Tuesday": "Tue", "Wednesday": "Wed", "Thursday": "Thu", "Sunday": "Sun"}
TIMES = ["18:00", "18:30", "19:00", "19:30", "20:00", "20:30"]
AUDIENCES = ["mixed"] * 8 + ["freshmen", "sophomores", "juniors", "seniors"]
YEARS = {1: ["1", "Freshman", "freshman", "Fr"], 2: ["2", "Sophomore", "So"], 3: ["3", "Junior", "Jr"],
         4: ["4", "Senior", "Sr"], 5: ["Graduate", "5"]}
AREA_CODES = ['805', '415', '213', '619']


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def groups_and_leaders(rng: random.Random, count: int, ministries: list[dict[str, str]]):
    groups, leaders = [], []
    for i in range(count):
        ministry = ministries[i % len(ministries)]
        sex = rng.choice(["men", "women", "mixed", "mixed"])
        leader_sex = {"men": "male", "women": "female"}.get(sex, rng.choice(["male", "female"]))
        email = f"leader{i}@groups.example.org"
        leaders.append([email, rng.choice(FIRST), rng.choice(LAST), phone(rng, AREA_CODES), leader_sex, ministry["campus"], "student"])
        day = rng.choice(DAYS)
        capacity = "" if rng.random() < 0.2 else str(rng.randint(15, 40))
        groups.append([f"g{i}-{ministry['code']}", ministry["code"], f"{DAY_SHORT[day]} group {i}", day,
                       rng.choice(TIMES), f"Room {100 + i}", rng.choice(AUDIENCES), sex, capacity, email, ""])
    return groups, leaders


LEADER_HEADER = ["email", "first_name", "last_name", "phone", "sex", "campus", "staff_role"]
GROUP_HEADER = ["code", "ministry", "name", "day", "time", "location", "audience", "sex", "capacity", "leaders",
                "description"]


def availability(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.02:
        return rng.choice(["TBD", "depends on my work schedule", "after class"])
    if roll < 0.05:
        return "Saturday mornings"
    if roll < 0.15:
        return rng.choice(["anytime", "Flexible", "Weekday evenings", "any time but Friday"])
    parts = []
    for day in rng.sample(DAYS, rng.randint(2, 4)):
        short = DAY_SHORT[day]
        parts.append(rng.choice([f"{short} evening", f"{day} after 6", f"{short} 6-10pm", f"{day}s after 5pm",
                                 f"{short} evenings", f"{short} 7-9pm"]))
    return rng.choice(["; ", ", "]).join(parts)


def main() -> None:
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    group_count, join_count, answer_count = (int(n) for n in sys.argv[2:])
    campuses = {row["code"]: row["name"] for row in read_csv(out / "campuses.csv")}
    ministries = read_csv(out / "ministries.csv")
    by_campus: dict[str, list[dict[str, str]]] = {}
    for ministry in ministries:
        by_campus.setdefault(ministry["campus"], []).append(ministry)

    rng = random.Random(SEED)
    groups, leaders = groups_and_leaders(rng, group_count, ministries)
    folder = out / f"groups-{group_count}"
    write_csv(folder / "leaders.csv", LEADER_HEADER, leaders)
    write_csv(folder / "groups.csv", GROUP_HEADER, groups)

    # notify: every join in a group with room, one student each.
    notify = out / f"notify-{join_count}"
    write_csv(notify / "leaders.csv", LEADER_HEADER, leaders)
    write_csv(notify / "groups.csv", GROUP_HEADER, [g[:8] + [""] + g[9:] for g in groups])
    students, memberships = [], []
    for i in range(join_count):
        group = groups[i % len(groups)]
        campus = next(m["campus"] for m in ministries if m["code"] == group[1])
        email = f"joiner{i}@students.example.org"
        students.append([email, rng.choice(FIRST), rng.choice(LAST), phone(rng, AREA_CODES), "", "1", campus])
        memberships.append([group[0], email, f"2026-09-{1 + i % 28:02d}T19:00:00-07:00", "active"])
    write_csv(notify / "students.csv", ["email", "first_name", "last_name", "phone", "sex", "school_year", "campus"],
              students)
    write_csv(notify / "memberships.csv", ["group", "email", "joined_at", "status"], memberships)

    # place: answers from the campuses that have groups, naming ministries by name or code.
    header = ["Timestamp", "First name", "Last name", "Email address", "Phone number", "Sex",
              "What year are you in school?", "Which campus do you attend?", "Which ministries are you interested in?",
              "When are you free to meet each week?"]
    campus_codes = sorted({ministries[i % len(ministries)]["campus"] for i in range(group_count)})
    answers = []
    for i in range(answer_count):
        campus = rng.choice(campus_codes)
        chosen = rng.sample(by_campus[campus], rng.choice([1, 1, 2]))
        named = rng.random() < 0.6
        ministries_text = (", " if named else ";").join(m["name"] if named else m["code"] for m in chosen)
        year = rng.randint(1, 5)
        first, last = rng.choice(FIRST), rng.choice(LAST)
        answers.append([f"9/{1 + i % 28}/2026 {10 + i % 12}:{i % 60:02d}:00", first, last,
                        f"answer{i}@students.example.org", phone(rng, AREA_CODES),
                        rng.choice(["Male", "Female", "male", "F", "M", "Prefer not to say"]),
                        rng.choice(YEARS[year]), campuses[campus] if rng.random() < 0.7 else campus, ministries_text,
                        availability(rng)])
    write_csv(out / f"answers-{answer_count}.csv", header, answers)


if __name__ == "__main__":
    main()
