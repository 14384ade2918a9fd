// Recast and Detour themselves (npm's recast-navigation: the C++ libraries compiled to WebAssembly), as the
// yardstick of voxelworld's navmesh: bakes a triangle soup with a given Recast config, counts the navmesh's
// polygons, area and islands, times the bake and times path queries between given pairs of points.
//
//     node benchmarks/recast_yardstick.mjs INPUT.json
//
// INPUT.json (benchmarks/recast_yardstick.py writes it):
//   positions      flat [x, y, z, ...] of the soup's vertices (m), indices: flat [a, b, c, ...] of its triangles
//   config         the Recast config of recast-navigation's generateSoloNavMesh, in its units (cells, as in
//                  Recast's demo: cs, ch, walkableHeight, walkableClimb, walkableRadius, maxEdgeLen,
//                  maxSimplificationError, minRegionArea and mergeRegionArea as a square's side, maxVertsPerPoly,
//                  detailSampleDist, detailSampleMaxError)
//   bakes          how many timed bakes (after one warm-up); their median is reported
//   pairs          [[ax, ay, az, bx, by, bz], ...]: each a path query, timed on its own after a warm-up pass
//   half_extents   [x, y, z] (m): the box in which a point is snapped to the navmesh (Recast's demo: 2, 4, 2)
//
// A path query is what voxelworld's NavQuery.find_path does: both points snapped to their nearest polygon
// (dtNavMeshQuery::findNearestPoly), the polygon corridor (findPath, A*) and the straight path along it
// (findStraightPath, the funnel); a corridor that ends short of the end's polygon (another island) is no path.
// Each query is timed two ways: through the raw binding of dtNavMeshQuery with buffers made once (as C++ code
// calls Detour: the yardstick) and through the library's own calls (as a JavaScript user calls them). Times are
// wall-clock (process.hrtime), each call on its own.
//
// Prints one JSON object on stdout: version, polygons, max_corners, vertices, area (m², the polygons on x-z),
// islands, bake_seconds (every timed bake, wall-clock) and bake_median, bake_cpu_median (the process's CPU
// time, user and system: steadier on a busy machine), path_cpu_mean (the raw queries' CPU time in one loop over
// every pair, divided by their count), path_seconds and path_lengths (per pair through the raw binding,
// buffers made once; length -1: no path), wrapper_path_seconds (per pair through the library's calls) and
// wrapper_length_difference (the largest difference of the two ways' lengths, m: 0 when they agree).
// Exit status 0 when it printed, 2 on a bad input or a failed bake (the reason on stderr).
import { readFile } from "node:fs/promises";
import { FloatArray, init, NavMeshQuery, Raw, UnsignedCharArray, UnsignedIntArray } from "recast-navigation";
import { generateSoloNavMesh } from "recast-navigation/generators";

const DT_EXT_LINK = 0x8000; // a polygon side that links to another tile (a solo navmesh has none)
const DT_PARTIAL_RESULT = 1 << 6; // findPath: the corridor ends at the polygon nearest the end, not the end's
const DT_SUCCESS = 1 << 30;
const MAX_PATH = 256; // polygons in a corridor and points in a straight path: the library's defaults

function fail(message) {
    console.error(`recast_yardstick.mjs: ${message}`);
    process.exit(2);
}

function seconds(start) {
    return Number(process.hrtime.bigint() - start) / 1e9;
}

function cpuSeconds(start) {
    const { user, system } = process.cpuUsage(start);
    return (user + system) / 1e6;
}

function median(values) {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function bake(input) {
    const result = generateSoloNavMesh(input.positions, input.indices, input.config);
    if (!result.success) fail(`the bake failed: ${result.error}`);
    return result.navMesh;
}

// Polygons, their corners, area on x-z and islands (connected by shared sides) of a solo navmesh's one tile.
function describe(navMesh) {
    const tile = navMesh.getTile(0);
    const header = tile.header();
    const count = header ? header.polyCount() : 0;
    const parent = Array.from({ length: count }, (_, i) => i);
    const find = (i) => {
        while (parent[i] !== i) i = parent[i] = parent[parent[i]];
        return i;
    };
    let area = 0;
    let maxCorners = 0;
    for (let p = 0; p < count; p++) {
        const poly = tile.polys(p);
        const corners = poly.vertCount();
        maxCorners = Math.max(maxCorners, corners);
        for (let k = 0; k < corners; k++) {
            const a = poly.verts(k);
            const b = poly.verts((k + 1) % corners);
            area += tile.verts(3 * a) * tile.verts(3 * b + 2) - tile.verts(3 * b) * tile.verts(3 * a + 2);
            const neighbour = poly.neis(k);
            if (neighbour !== 0 && !(neighbour & DT_EXT_LINK)) parent[find(p)] = find(neighbour - 1);
        }
    }
    const islands = new Set(Array.from({ length: count }, (_, i) => find(i))).size;
    return {
        polygons: count,
        max_corners: maxCorners,
        vertices: header ? header.vertCount() : 0,
        area: Math.abs(area) / 2,
        islands,
    };
}

function pathLength(points, count) {
    let length = 0;
    for (let n = 1; n < count; n++) {
        const dx = points[3 * n] - points[3 * n - 3];
        const dy = points[3 * n + 1] - points[3 * n - 2];
        const dz = points[3 * n + 2] - points[3 * n - 1];
        length += Math.hypot(dx, dy, dz);
    }
    return length;
}

// One path query as C++ code makes it, through the raw binding of dtNavMeshQuery with its buffers made once:
// two snaps, the corridor, the straight path; a function of a pair giving its length in 3-D (m), -1 for no path.
// (The binding still copies the points in and allocates the corridor's and the straight path's arrays inside.)
function rawPathQuery(query, halfExtents) {
    const raw = query.raw;
    const filter = query.defaultFilter.raw;
    const extents = [halfExtents.x, halfExtents.y, halfExtents.z];
    const startRef = new Raw.Module.UnsignedIntRef();
    const endRef = new Raw.Module.UnsignedIntRef();
    const startPoint = new Raw.Module.Vec3();
    const endPoint = new Raw.Module.Vec3();
    const over = new Raw.Module.BoolRef();
    const polys = new UnsignedIntArray();
    const straight = new FloatArray();
    straight.resize(3 * MAX_PATH);
    const flags = new UnsignedCharArray();
    flags.resize(MAX_PATH);
    const refs = new UnsignedIntArray();
    refs.resize(MAX_PATH);
    const count = new Raw.Module.IntRef();
    return (pair) => {
        let status = raw.findNearestPoly([pair[0], pair[1], pair[2]], extents, filter, startRef, startPoint, over);
        if (!(status & DT_SUCCESS) || startRef.value === 0) return -1;
        status = raw.findNearestPoly([pair[3], pair[4], pair[5]], extents, filter, endRef, endPoint, over);
        if (!(status & DT_SUCCESS) || endRef.value === 0) return -1;
        const start = [startPoint.x, startPoint.y, startPoint.z];
        const end = [endPoint.x, endPoint.y, endPoint.z];
        status = raw.findPath(startRef.value, endRef.value, start, end, filter, polys.raw, MAX_PATH);
        if (!(status & DT_SUCCESS) || (status & DT_PARTIAL_RESULT) || polys.size === 0) return -1;
        status = raw.findStraightPath(start, end, polys.raw, straight.raw, flags.raw, refs.raw, count, MAX_PATH, 0);
        if (!(status & DT_SUCCESS)) return -1;
        return pathLength(straight.getHeapView(), count.value);
    };
}

// The same query through the library's own calls (NavMeshQuery.findNearestPoly, findPath, findStraightPath: a
// JavaScript user's code), each allocating and freeing its result arrays.
function pathQuery(query, pair, halfExtents) {
    const a = { x: pair[0], y: pair[1], z: pair[2] };
    const b = { x: pair[3], y: pair[4], z: pair[5] };
    const start = query.findNearestPoly(a, { halfExtents });
    const end = query.findNearestPoly(b, { halfExtents });
    if (!start.success || !end.success || start.nearestRef === 0 || end.nearestRef === 0) return -1;
    const corridor = query.findPath(start.nearestRef, end.nearestRef, start.nearestPoint, end.nearestPoint);
    const polys = corridor.polys;
    if (!corridor.success || (corridor.status & DT_PARTIAL_RESULT) || polys.size === 0) {
        polys.destroy();
        return -1;
    }
    const straight = query.findStraightPath(start.nearestPoint, end.nearestPoint, polys);
    polys.destroy();
    const length = straight.success ? pathLength(straight.straightPath.getHeapView(), straight.straightPathCount) : -1;
    straight.straightPath.destroy();
    straight.straightPathFlags.destroy();
    straight.straightPathRefs.destroy();
    return length;
}

const [path] = process.argv.slice(2);
if (!path) fail("usage: node recast_yardstick.mjs INPUT.json");
let input;
try {
    input = JSON.parse(await readFile(path, "utf8"));
} catch (error) {
    fail(`${path}: ${error?.message ?? error}`);
}
if (!Array.isArray(input.positions) || !Array.isArray(input.indices) || input.indices.length % 3 !== 0) {
    fail(`${path}: positions and indices must be flat arrays, indices by threes`);
}
const bakes = Number.isInteger(input.bakes) && input.bakes >= 1 ? input.bakes : fail(`bakes: ${input.bakes}`);
const pairs = input.pairs ?? [];
const [hx, hy, hz] = input.half_extents ?? [2, 4, 2];
const halfExtents = { x: hx, y: hy, z: hz };

await init();
const manifest = new URL("package.json", import.meta.resolve("recast-navigation"));
const { version } = JSON.parse(await readFile(manifest, "utf8"));
bake(input).destroy(); // warm-up: the WebAssembly module's first calls, its heap grown
const bakeSeconds = [];
const bakeCpuSeconds = [];
let navMesh;
for (let n = 0; n < bakes; n++) {
    navMesh?.destroy();
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    navMesh = bake(input);
    bakeSeconds.push(seconds(start));
    bakeCpuSeconds.push(cpuSeconds(cpu));
}
const description = describe(navMesh);
const query = new NavMeshQuery(navMesh); // maxNodes 2048, as Recast's demo
const rawQuery = rawPathQuery(query, halfExtents);
for (const pair of pairs) {  // warm-up pass, as the Python side does
    rawQuery(pair);
    pathQuery(query, pair, halfExtents);
}
const pathSeconds = [];
const pathLengths = [];
const wrapperSeconds = [];
let lengthDifference = 0;
for (const pair of pairs) {  // the two ways in turn, pair by pair, so that both see the same machine
    let start = process.hrtime.bigint();
    const length = rawQuery(pair);
    pathSeconds.push(seconds(start));
    start = process.hrtime.bigint();
    const again = pathQuery(query, pair, halfExtents);
    wrapperSeconds.push(seconds(start));
    pathLengths.push(length);
    lengthDifference = Math.max(lengthDifference, Math.abs(again - length));
}
const cpu = process.cpuUsage(); // CPU time of the raw queries in one loop, no clock read per call
for (const pair of pairs) rawQuery(pair);
const pathCpuMean = pairs.length ? cpuSeconds(cpu) / pairs.length : 0;
query.destroy();
navMesh.destroy();
process.stdout.write(JSON.stringify({
    version,
    ...description,
    bake_seconds: bakeSeconds,
    bake_median: median(bakeSeconds),
    bake_cpu_median: median(bakeCpuSeconds),
    path_cpu_mean: pathCpuMean,
    path_seconds: pathSeconds,
    path_lengths: pathLengths,
    wrapper_path_seconds: wrapperSeconds,
    wrapper_length_difference: lengthDifference,
}) + "\n");
