"""``benchmarks/play.py --quick`` (issue #35, several players): its table has a row for 1, 4 and 8 players and the
single player's reference rows, each with sane times, and every player of every row acted: each removed voxels with
its own tool (a seat whose inputs pressed nothing, or a row that measured one player only, would show 0), punches
landed, and suck ran only where a fourth player holds it."""

from __future__ import annotations

from pathlib import Path

from .child import run_child

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "play.py"
PLAYER_ROWS = {"1 player": 1, "4 players": 4, "8 players": 8}
REFERENCES = ("reference: 1 player walking", "reference: 1 player sucking the wall")


def table(printed: str) -> tuple[list[str], list[list[str]]]:
    """The header and rows of the first Markdown table ``printed``."""
    lines = [line for line in printed.splitlines() if line.startswith("|")]
    assert len(lines) >= 3 and set(lines[1]) <= set("|-:"), printed
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    return cells[0], [row for row in cells[2:] if len(row) == len(cells[0])]


def test_quick_several_players_rows_have_their_shape_and_every_player_acted():
    done = run_child([str(SCRIPT), "--quick"], timeout=300.0, what="benchmarks/play.py --quick")
    assert done.returncode == 0, done.stdout + done.stderr
    header, rows = table(done.stdout)
    assert header[1:4] == ["median ms", "p95 ms", "max ms"]
    column = {name: header.index(name) for name in ("median CPU ms", "punches landed / started", "suck edits",
                                                     "m³ removed, least by one player")}
    names = [row[0] for row in rows]
    assert len(rows) == len(PLAYER_ROWS) + len(REFERENCES), done.stdout
    for row in rows:
        median, p95, most, cpu = (float(row[n]) for n in (1, 2, 3, column["median CPU ms"]))
        assert 0.0 < median <= p95 <= most and cpu > 0.0, row
    for name, count in PLAYER_ROWS.items():
        (row,) = [row for row in rows if row[0].startswith(f"{name} digging")]
        landed, started = (int(part) for part in row[column["punches landed / started"]].split(" / "))
        assert 0 < landed <= started, row  # the punchers (all but every fourth player) struck the ground
        suck = int(row[column["suck edits"]])
        assert (suck > 0) == (count >= 4), row  # the fourth and eighth players hold suck; one player punches
        least = float(row[column["m³ removed, least by one player"]])
        assert least > 0.0, f"a player of the {name} row removed nothing: {row}"
    assert any(row[-1] == "<= 8 ms median" for row in rows if row[0].startswith("8 players")), names
    for reference in REFERENCES:
        assert sum(name.startswith(reference) for name in names) == 1, names
    assert "seat_page_figures" in done.stdout  # part two's place is named until it is measured
