#!/usr/bin/python3
"""Save a bench CSV file as an Excel workbook, the way a spreadsheet would hold it.

    bench/csv-to-xlsx.py IN.csv OUT.xlsx

One sheet, written by openpyxl in write-only mode (rows stream to disk). Cells that are plain
whole numbers (phones typed as digits, school years) become numbers, as a spreadsheet stores
them; everything else is text. Written under a temporary name and renamed when complete. Needs
Debian's python3-openpyxl (hence /usr/bin/python3).
"""

import csv
import os
import sys

import openpyxl


def cell(text: str):
    return int(text) if text.isdigit() and not (len(text) > 1 and text[0] == "0") and len(text) < 16 else text


def main() -> None:
    source, target = sys.argv[1], sys.argv[2]
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("students")
    with open(source, newline="", encoding="utf-8") as rows:
        for row in csv.reader(rows):
            sheet.append([cell(text) for text in row])
    partial = target + ".partial"
    book.save(partial)
    os.replace(partial, target)


if __name__ == "__main__":
    main()
