// Validates a glTF asset with the Khronos glTF validator and prints its report as JSON on stdout.
//
//     node tests/io/validate_gltf.mjs FILE.glb
//
// gltf-validator is resolved from the repository root's node_modules (scripts/setup installs it with npm ci).
// Exit status: 0 when the report was printed (whatever it says), 2 when the file could not be read or validated.
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { validateBytes } from "gltf-validator";

const [path] = process.argv.slice(2);
if (!path) {
    console.error("usage: node validate_gltf.mjs FILE");
    process.exit(2);
}
try {
    const bytes = new Uint8Array(await readFile(path));
    const report = await validateBytes(bytes, { uri: basename(path), maxIssues: 0, writeTimestamp: false });
    process.stdout.write(JSON.stringify(report, null, 1) + "\n");
} catch (error) {
    console.error(`validate_gltf.mjs: ${path}: ${error?.message ?? error}`);
    process.exit(2);
}
