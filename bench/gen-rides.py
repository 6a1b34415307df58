#!/usr/bin/env python3
"""Generate one ride-sharing event for scripts/bench's `rides pair` line.

    bench/gen-rides.py OUT_DIR REQUESTS OFFERS

Writes, deterministically (fixed seed, standard library only), the folder
OUT_DIR/rides-<REQUESTS>x<OFFERS>/, which `crubatch import --dir` loads whole:

    campuses.csv, ministries.csv   one campus and its ministry
    students.csv                   the OFFERS drivers (only members drive) and a third of the
                                   passengers; the other passengers are new to crubatch and are
                                   added as non-members from their request's name and phone
    events.csv                     one weekend retreat that shares rides both ways
    ride-offers.csv                OFFERS cars: 1-8 seats (mostly 3-5), going both ways, only there
                                   or only back, leaving around four departure times each way
    ride-requests.csv              REQUESTS passengers: both ways, only there or only back, most with
                                   a window of one to three hours around one of those times, some
                                   with none

Pickup points are spread over San Luis Obispo County, around its towns: most with coordinates,
some with a postal code only, a few with the place's name only (typed as people type it).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from generated import FIRST, LAST, phone, write_csv

SEED = 20261016
EVENT = "bench-retreat"
CAMPUS = "calpoly"
MINISTRY = "cru-calpoly"
# The retreat: Friday evening to Sunday afternoon, in the event's zone.
TO_TIMES = ["2030-10-18T15:00", "2030-10-18T16:30", "2030-10-18T18:00", "2030-10-18T19:30"]
FROM_TIMES = ["2030-10-20T12:00", "2030-10-20T13:30", "2030-10-20T15:00"]
# Towns of the county: name, latitude, longitude, spread in degrees, postal codes, weight.
TOWNS = [
    ("San Luis Obispo", 35.2828, -120.6596, 0.030, ["93401", "93405", "93407", "93410"], 40),
    ("Arroyo Grande", 35.1186, -120.5907, 0.020, ["93420"], 8),
    ("Atascadero", 35.4894, -120.6707, 0.025, ["93422", "93423"], 8),
    ("Paso Robles", 35.6266, -120.6910, 0.030, ["93446", "93447"], 8),
    ("Morro Bay", 35.3658, -120.8499, 0.015, ["93442", "93443"], 6),
    ("Los Osos", 35.3111, -120.8324, 0.015, ["93402", "93412"], 6),
    ("Pismo Beach", 35.1428, -120.6413, 0.012, ["93448", "93449"], 5),
    ("Grover Beach", 35.1216, -120.6210, 0.010, ["93433", "93483"], 4),
    ("Nipomo", 35.0428, -120.4760, 0.020, ["93444"], 5),
    ("Templeton", 35.5497, -120.7060, 0.012, ["93465"], 3),
    ("Cambria", 35.5641, -121.0808, 0.015, ["93428"], 3),
    ("Santa Margarita", 35.3897, -120.6085, 0.010, ["93453"], 2),
]
PLACES = ["Yosemite Hall", "Poly Canyon Village", "Cerro Vista", "Mission Plaza", "Rec Center lot", "Library",
          "Grand Ave lot", "Foothill & Santa Rosa", "Madonna Plaza", "Park & Ride"]
AREA_CODES = ['805', '559', '408', '213']


def pickup(rng: random.Random) -> list[str]:
    """pickup_location, latitude, longitude, postal_code: coordinates for 85%, a postal code only for
    12%, the place as typed for 3%."""
    town, latitude, longitude, spread, codes, _ = rng.choices(TOWNS, weights=[t[5] for t in TOWNS])[0]
    place = f"{rng.choice(PLACES)}, {town}" if town == "San Luis Obispo" else town
    roll = rng.random()
    if roll < 0.85:
        return [place, f"{rng.gauss(latitude, spread):.6f}", f"{rng.gauss(longitude, spread):.6f}",
                rng.choice(codes) if rng.random() < 0.3 else ""]
    if roll < 0.97:
        return [place, "", "", rng.choice(codes)]
    return [rng.choice([place, place.lower(), "  " + place.upper()]), "", "", ""]


def shifted(time: str, minutes: int) -> str:
    day, clock = time.split("T")
    hours, mins = (int(n) for n in clock.split(":"))
    total = hours * 60 + mins + minutes
    return f"{day}T{total // 60:02d}:{total % 60:02d}:00"


def main() -> None:
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    request_count, offer_count = int(sys.argv[2]), int(sys.argv[3])
    folder = out / f"rides-{request_count}x{offer_count}"
    rng = random.Random(SEED)

    write_csv(folder / "campuses.csv", ["code", "name", "city", "state", "country", "timezone"],
              [[CAMPUS, "Cal Poly San Luis Obispo", "San Luis Obispo", "CA", "US", "America/Los_Angeles"]])
    write_csv(folder / "ministries.csv", ["code", "name", "campus", "description"],
              [[MINISTRY, "Cru Cal Poly", CAMPUS, "The main Cru movement at Cal Poly"]])
    write_csv(folder / "events.csv",
              ["code", "name", "starts_at", "ends_at", "timezone", "location", "ministries", "rideshare"],
              [[EVENT, "Bench Fall Retreat", "2030-10-18T19:00:00", "2030-10-20T13:00:00", "America/Los_Angeles",
                "Camp Ocean Pines, Cambria", MINISTRY, "yes"]])

    students, offers, requests = [], [], []
    for i in range(offer_count):
        email = f"driver{i}@rides.example.org"
        students.append([email, rng.choice(FIRST), rng.choice(LAST), phone(rng, AREA_CODES), "", str(rng.randint(1, 5)), CAMPUS,
                         MINISTRY])
        direction = rng.choices(["both", "to", "from"], weights=[70, 20, 10])[0]
        seats = rng.choices(range(1, 9), weights=[6, 10, 25, 25, 18, 8, 5, 3])[0]
        departs_to = shifted(rng.choice(TO_TIMES), 15 * rng.randint(-2, 2)) if direction != "from" else ""
        departs_from = shifted(rng.choice(FROM_TIMES), 15 * rng.randint(-2, 2)) if direction != "to" else ""
        offers.append([EVENT, email, direction, str(seats), departs_to, departs_from, *pickup(rng), "open"])
    for i in range(request_count):
        email = f"rider{i}@rides.example.org"
        known = rng.random() < 1 / 3
        first, last, number = rng.choice(FIRST), rng.choice(LAST), phone(rng, AREA_CODES)
        if known:
            students.append([email, first, last, number, "", str(rng.randint(1, 5)), CAMPUS, MINISTRY])
        direction = rng.choices(["both", "to", "from"], weights=[60, 25, 15])[0]
        earliest = latest = ""
        if rng.random() < 0.9:
            # A window of one to three hours around one of the times, for the way there (or back, for
            # a request back only).
            anchor = rng.choice(FROM_TIMES if direction == "from" else TO_TIMES)
            start = -15 * rng.randint(0, 6)
            earliest, latest = shifted(anchor, start), shifted(anchor, start + 60 * rng.randint(1, 3))
        requests.append([EVENT, email, *(["", "", ""] if known else [first, last, number]), direction, *pickup(rng),
                         earliest, latest, "pending"])

    write_csv(folder / "students.csv",
              ["email", "first_name", "last_name", "phone", "sex", "school_year", "campus", "ministries"], students)
    write_csv(folder / "ride-offers.csv",
              ["event", "email", "direction", "seats", "departs_to", "departs_from", "pickup_location", "latitude",
               "longitude", "postal_code", "status"], offers)
    write_csv(folder / "ride-requests.csv",
              ["event", "email", "first_name", "last_name", "phone", "direction", "pickup_location", "latitude",
               "longitude", "postal_code", "earliest_departure", "latest_departure", "status"], requests)


if __name__ == "__main__":
    main()
