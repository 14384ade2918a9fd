"""The quick guard (issue #29): the frame's budget rows and the ratio rows against their references, short enough
to run before every change to a hot path. Run: ``.venv/bin/python benchmarks/guard.py`` (about 40 s after set-up).

Each figure is the median of at least three runs, measured in this process; a ratio's reference (scikit-image's
marching cubes, Embree's rays, ikpy's inverse kinematics, pynavmesh's paths) is measured in the same run, so ratios
hold where a busy machine slows everything. Each limit is the target of docs/benchmarks.md with a margin of about
30% for this 2-core machine's scatter: a figure beyond it is a regression to look at, not noise. Where a target is
not reached yet (issue #29's rows that docs/benchmarks.md explains, with the profiles of where the time goes), the
limit keeps what the code reaches today, with the same margin, and the row says the target is still ahead: the
guard then catches a regression without failing on every run. Every figure is printed; the exit status is 1 when
one falls short of its limit (2 when a benchmark could not run at all).

``--only game,meshing`` runs some groups (game, navigation, meshing, collision, play, motion).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))

MARGIN = 1.3  # the machine's scatter between runs, as a factor


@dataclass(frozen=True)
class Check:
    """One figure of a group's results and its limit: ``figure <= limit`` (``at_most``) or ``figure >= limit``."""

    figure: str
    target: float  # the target of docs/benchmarks.md
    at_most: bool = True
    # Where the target is not reached: the figure the code reaches today on a quiet machine (docs/benchmarks.md),
    # which the limit keeps instead of the target.
    reached: float | None = None

    @property
    def limit(self) -> float:
        kept = self.target if self.reached is None else self.reached
        return kept * MARGIN if self.at_most else kept / MARGIN

    def holds(self, value: float) -> bool:
        return value <= self.limit if self.at_most else value >= self.limit

    def meets_target(self, value: float) -> bool:
        return value <= self.target if self.at_most else value >= self.target


def game_figures() -> dict[str, float]:
    from game import budget_figures
    return budget_figures()


def navigation_figures() -> dict[str, float]:
    from navigation import guard_figures
    return guard_figures()


def meshing_figures() -> dict[str, float]:
    from meshing import guard_figures
    return guard_figures()


def collision_figures() -> dict[str, float]:
    from collision import guard_figures
    return guard_figures()


def play_figures() -> dict[str, float]:
    from play import guard_figures
    return guard_figures()


def motion_figures() -> dict[str, float]:
    from motion import guard_figures
    return guard_figures()


# Group -> (how to measure it, the checks on its figures). Targets: issue #29 (the frame, the navmesh's update,
# meshing against marching cubes, rays against Embree, what a page is sent), earlier issues for the rest. The
# ``reached`` figures: the medians of the quiet runs of issue #29's last session (docs/benchmarks.md, "Issue #29,
# closed").
GROUPS = {
    "game": (game_figures, [Check("walking median ms", 1.5), Check("suck median ms", 5.0, reached=6.5),
                            Check("scraping median ms", 5.0, reached=6.5), Check("walking p95 ms", 10.0),
                            Check("suck p95 ms", 10.0, reached=12.5), Check("scraping p95 ms", 10.0, reached=16.5),
                            Check("walking max ms", 25.0), Check("suck max ms", 25.0),
                            Check("scraping max ms", 25.0)]),
    "navigation": (navigation_figures, [Check("update_prebuilt_ms", 3.0, reached=4.4), Check("update_prebuilt_p95_ms", 6.0),
                                        Check("update_ms", 5.0), Check("find_path_us", 25.0)]),
    "meshing": (meshing_figures, [Check("unsimplified_speedup", 2.0, at_most=False, reached=1.1),
                                  Check("simplified_speedup", 1.3, at_most=False, reached=1.05),
                                  Check("chunk_simplified_ms", 0.6, reached=1.0),
                                  Check("occlusion_share", 0.15, reached=0.31)]),
    "collision": (collision_figures, [Check("raycast / Embree", 0.5, at_most=False)]),
    "play": (play_figures, [Check("total_bytes_per_s", 100 * 1024)]),
    # two_bone_ik <= 25 µs where ikpy takes 5-20 ms (issue #5): at least 200 times ikpy's speed on the same arm.
    "motion": (motion_figures, [Check("ikpy_over_two_bone", 200.0, at_most=False), Check("two_bone_ik_us", 25.0),
                                Check("contact_step_us", 200.0)]),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(GROUPS), help="groups to run, comma-separated (default: all)")
    args = parser.parse_args()
    names = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in names if name not in GROUPS]
    if unknown:
        parser.error(f"unknown group(s) {', '.join(unknown)}; known: {', '.join(GROUPS)}")
    from terrain import machine
    print(f"Machine: {machine()}; load average {os.getloadavg()[0]:.2f} (figures hold on a quiet machine, below 1)")
    failed, broken, ahead = [], [], []
    began = time.perf_counter()
    for name in names:
        measure, checks = GROUPS[name]
        start = time.perf_counter()
        try:
            figures = measure()
        except Exception as error:  # a benchmark that cannot run is reported, and the others still run
            broken.append(name)
            print(f"\n{name}: could not run: {type(error).__name__}: {error}")
            continue
        print(f"\n{name} ({time.perf_counter() - start:.1f} s)")
        limits = {check.figure: check for check in checks}
        for figure, value in figures.items():
            check = limits.get(figure)
            if check is None:
                print(f"  {figure:58s} {value:12.3f}")
                continue
            verdict = "ok" if check.holds(value) else "FALLS SHORT"
            sign = "<=" if check.at_most else ">="
            kept = "" if check.reached is None else f", kept {check.reached:g}"
            print(f"  {figure:58s} {value:12.3f}   {sign} {check.limit:.3f} (target {check.target:g}{kept})  {verdict}")
            if not check.holds(value):
                failed.append(f"{name}: {figure}")
            elif not check.meets_target(value):
                ahead.append(f"{name}: {figure}")
        for missing in [check.figure for check in checks if check.figure not in figures]:
            broken.append(f"{name}: {missing} (not measured)")
    print(f"\n{time.perf_counter() - began:.1f} s in all")
    if broken:
        print("could not measure: " + "; ".join(broken))
    if ahead:
        print("within the limits, short of the target still (docs/benchmarks.md says why): " + "; ".join(ahead))
    if failed:
        print("falls short: " + "; ".join(failed))
    return 2 if broken else (1 if failed else 0)


if __name__ == "__main__":
    sys.exit(main())
