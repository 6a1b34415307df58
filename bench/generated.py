"""What the bench's data generators share: names people have, US phones, atomic CSV files."""

from __future__ import annotations

import csv
import random
from pathlib import Path

FIRST = ["Hannah", "Noah", "Emma", "Rubén", "Zoë", "Liam", "Ava", "Mateo", "Chloé", "Kai", "Priya", "Minh",
         "Seo-yeon", "Olivia", "Elijah", "Sophia", "Levi", "Naomi", "Josiah", "Ruth"]
LAST = ["Collins", "Mitchell", "Campbell", "Peña", "García", "Nguyễn", "O'Brien", "Kim", "Patel", "Smith",
        "Johnson", "Lee", "Martínez", "Müller", "Tanaka", "Walker", "Young", "King", "Scott", "Côté"]


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    """Writes through a temporary name and a rename, so an interrupted run leaves no half file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(path.suffix + ".tmp")
    with open(temporary, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\r\n")
        writer.writerow(header)
        writer.writerows(rows)
    temporary.rename(path)


def phone(rng: random.Random, area_codes: list[str]) -> str:
    return f"({rng.choice(area_codes)}) 555-{rng.randint(100, 9999):04d}"
