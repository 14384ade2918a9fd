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


def table(printed: str, number: int = 0) -> tuple[list[str], list[list[str]]]:
    """The header and rows of the ``number``-th Markdown table ``printed`` (from 0)."""
    tables, lines = [[]], []
    for line in printed.splitlines():
        if line.startswith("|"):
            tables[-1].append(line)
        elif tables[-1]:
            tables.append([])
    lines = tables[number]
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
    # Part two: what each player's page is sent (its own frame and HUD; the chunks every player digs).
    header, rows = table(done.stdout, 1)
    assert header[1:5] == ["chunk meshes KiB/s", "poses KiB/s", "frame JSON KiB/s", "HUD KiB/s"], header
    assert [row[0].split(" player")[0] for row in rows] == ["1", "4", "8"], rows
    for row in rows:
        chunks, poses, frame, hud, mean, most = (float(cell) for cell in row[1:7])
        assert min(chunks, poses, frame, hud) > 0.0 and mean <= most, row  # the digging's chunks, every part
        assert mean == round(chunks + poses + frame + hud, 1) or abs(mean - (chunks + poses + frame + hud)) < 0.2
