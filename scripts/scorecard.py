#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Grades one exercise from its grader's run, correctness and speed apart, for people and machines.

    scorecard.py --exercise NN [--record DIR] [--require-speed] -- GRADER [ARGS...]
        runs the grader, shows its output, then one verdict line. Correctness is the grader's
        exit code (its cases against the float64 reference); speed, graded only once every case
        passes, is the grader's "% of the copy roof" against the exercise's speed_threshold in
        course.json (none for an exercise graded on the CPU). --record DIR writes the verdict as
        DIR/exNN.json. Exit code: 0 correct (and,
        with --require-speed, fast enough), 1 not, 77 no GPU to grade on (the grader's own code).
    scorecard.py --exercise NN --no-build LOG [--record DIR]
        records an exercise that did not compile (LOG: the compiler's messages).
    scorecard.py --combine DIR [--junit FILE] [--json FILE]
        gathers DIR's records into one JUnit XML file (two test cases an exercise: correctness,
        speed) and one JSON scorecard.
    scorecard.py --self-test
Python standard library only.
"""
import argparse
import json
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NO_GPU = 77


def exercise_of(number):
    course = json.loads((ROOT / "course.json").read_text())
    for e in course["exercises"]:
        if e["number"] == f"{int(number):02d}":
            return e
    raise SystemExit(f"scorecard: course.json has no exercise {number}")


def verdict(exercise, exit_code, output):
    """The scorecard of one grader run: exit code and printed lines -> correctness and speed."""
    name = f"ex{exercise['number']}-{exercise['slug']}"
    counts = [tuple(map(int, m)) for m in re.findall(r"correctness: (\d+) / (\d+) cases passed", output)]
    speeds = re.findall(r"speed: .*?([0-9.]+)% of the copy roof on (.*)", output)
    threshold = exercise.get("speed_threshold")  # none: host code, graded on the CPU
    record = {"exercise": name, "grader_exit_code": exit_code, "output": output,
              "correctness": {"status": "pass" if exit_code == 0 else "fail",
                              "cases_passed": sum(p for p, _ in counts),
                              "cases": sum(t for _, t in counts)},
              "speed": {"status": "not graded", "threshold_percent_of_roof": threshold}}
    if exit_code == NO_GPU:
        record["correctness"]["status"] = "no GPU"
    elif threshold is None:
        record["speed"]["status"] = "none"
    elif exit_code == 0 and speeds:
        percent = float(speeds[-1][0])
        record["speed"].update(status="pass" if percent >= threshold else "fail",
                               percent_of_roof=percent, case=speeds[-1][1].strip())
    elif exit_code == 0:
        record["speed"]["status"] = "not measured"
    return record


def summary(record):
    c, s = record["correctness"], record["speed"]
    line = f"grade: {record['exercise']}: correctness {c['status'].upper()}"
    if c["cases"]:
        line += f" ({c['cases_passed']} / {c['cases']} cases)"
    line += f"; speed {s['status'].upper()}"
    if "percent_of_roof" in s:
        line += f" ({s['percent_of_roof']:.1f}% of the copy roof, threshold {s['threshold_percent_of_roof']}%)"
    elif s["status"] == "not graded":
        line += " (graded once every case passes)"
    elif s["status"] == "none":
        line += " (host code: no speed bar)"
    return line


def write_record(record, directory):
    if directory:
        Path(directory).mkdir(parents=True, exist_ok=True)
        Path(directory, record["exercise"][:4] + ".json").write_text(json.dumps(record, indent=1) + "\n")


def combine(directory, junit, json_path):
    records = [json.loads(p.read_text()) for p in sorted(Path(directory).glob("ex*.json"))]
    if json_path:
        scorecard = {"exercises": records,
                     "correct": sum(r["correctness"]["status"] == "pass" for r in records),
                     "fast_enough": sum(r["speed"]["status"] == "pass" for r in records),
                     "total": len(records)}
        Path(json_path).write_text(json.dumps(scorecard, indent=1) + "\n")
    if junit:
        suites = ElementTree.Element("testsuites", name="normlab")
        suite = ElementTree.SubElement(suites, "testsuite", name="exercises")
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for r in records:
            for part in ("correctness", "speed"):
                case = ElementTree.SubElement(suite, "testcase", classname=r["exercise"], name=part)
                counts["tests"] += 1
                status = r[part]["status"]
                detail = summary(r)
                if status == "fail":
                    ElementTree.SubElement(case, "failure", message=detail)
                    counts["failures"] += 1
                elif status != "pass":
                    ElementTree.SubElement(case, "skipped", message=f"{part} {status}")
                    counts["skipped"] += 1
                ElementTree.SubElement(case, "system-out").text = r["output"] if part == "correctness" else detail
        for key, value in counts.items():
            suite.set(key, str(value))
        ElementTree.ElementTree(suites).write(junit, encoding="utf-8", xml_declaration=True)


def self_test():
    """Made-up grader runs through the whole path: each verdict, and both files."""
    fake = {"passed, fast": (0, "correctness: 12 / 12 cases passed\nspeed: 9.0 us, 2000.0 GB/s, 81.5% of the copy roof on 2048 x 8192\n"),
            "passed, slow": (0, "correctness: 12 / 12 cases passed\nspeed: 90.0 us, 200.0 GB/s, 8.2% of the copy roof on 2048 x 8192\n"),
            "failed": (1, "correctness: 3 / 12 cases passed\n  row 0 col 5: got 1 want 2\n"),
            "no GPU": (NO_GPU, "SKIPPED: no CUDA GPU is visible\n")}
    exercise = exercise_of(4)
    expected = {"passed, fast": ("pass", "pass"), "passed, slow": ("pass", "fail"),
                "failed": ("fail", "not graded"), "no GPU": ("no GPU", "not graded")}
    with tempfile.TemporaryDirectory() as scratch:
        for name, (code, output) in fake.items():
            run = subprocess.run([sys.executable, __file__, "--exercise", "4", "--record",
                                  f"{scratch}/{name}", "--require-speed", "--", sys.executable, "-c",
                                  f"import sys; sys.stdout.write({output!r}); sys.exit({code})"],
                                 capture_output=True, text=True)
            record = json.loads(Path(scratch, name, "ex04.json").read_text())
            got = (record["correctness"]["status"], record["speed"]["status"])
            assert got == expected[name], f"self-test: {name}: {got} != {expected[name]}"
            want_code = {"passed, fast": 0, "no GPU": NO_GPU}.get(name, 1)
            assert run.returncode == want_code, f"self-test: {name}: exit {run.returncode}\n{run.stdout}"
            assert "grade: ex04-vector-tail: correctness" in run.stdout
            print(f"ok: {name}: {summary(record)}")
        both = Path(scratch, "both")
        both.mkdir()
        Path(scratch, "passed, slow", "ex04.json").rename(both / "ex04.json")
        broken = verdict(exercise_of(1), 1, "ex01.cu:3: error: expected ';'")
        broken["correctness"]["status"] = "no build"
        write_record(broken, both)
        combine(both, Path(scratch, "r.xml"), Path(scratch, "r.json"))
        suite = ElementTree.parse(Path(scratch, "r.xml")).getroot().find("testsuite")
        assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "1", "2"), suite.attrib
        card = json.loads(Path(scratch, "r.json").read_text())
        assert (card["correct"], card["fast_enough"], card["total"]) == (1, 0, 2), card
    print("scorecard self-test passed")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exercise")
    parser.add_argument("--record")
    parser.add_argument("--require-speed", action="store_true")
    parser.add_argument("--no-build")
    parser.add_argument("--combine")
    parser.add_argument("--junit")
    parser.add_argument("--json")
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if args.combine:
        combine(args.combine, args.junit, args.json)
        return 0
    if not args.exercise:
        parser.error("--exercise, --combine or --self-test is needed")
    exercise = exercise_of(args.exercise)
    if args.no_build:
        record = verdict(exercise, 1, Path(args.no_build).read_text())
        record["correctness"]["status"] = "no build"
        write_record(record, args.record)
        print(summary(record))
        return 1
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("the grader to run follows --")
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(run.stdout)
    record = verdict(exercise, run.returncode, run.stdout)
    write_record(record, args.record)
    print(summary(record))
    if run.returncode == NO_GPU:
        return NO_GPU
    correct = record["correctness"]["status"] == "pass"
    fast = record["speed"]["status"] == "pass"
    return 0 if correct and (fast or not args.require_speed) else 1


if __name__ == "__main__":
    sys.exit(main())
