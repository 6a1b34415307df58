#!/usr/bin/env python3
"""Copies a students CSV with every tenth student's last name changed (the name, trimmed, with
"-Ward" after it): the bench's re-import of a file in which 10% of the rows changed. Run on the raw
file and on its normalised copy, it changes the same students in both.

usage: change-rows.py IN.csv OUT.csv
"""
import csv
import sys


def main() -> None:
    source, target = sys.argv[1], sys.argv[2]
    with open(source, newline="", encoding="utf-8") as inp, open(target, "w", newline="", encoding="utf-8") as out:
        rows = csv.reader(inp)
        writer = csv.writer(out, lineterminator="\n")
        header = next(rows)
        writer.writerow(header)
        last = header.index("last_name")
        for n, row in enumerate(rows):
            if n % 10 == 0:
                row[last] = row[last].strip() + "-Ward"
            writer.writerow(row)


if __name__ == "__main__":
    main()
