"""Checks every services/<name>/Dockerfile against what the issue asks of the images.

usage: dockerfiles.py REPO_ROOT
"""
import os
import re
import sys

import dockerfile  # BuildKit's own Dockerfile parser (PyPI "dockerfile")

SERVICES = ("api", "billing", "processor", "webhooks", "standalone")
WITH_MODELS = {"processor", "standalone"}


def main():
    root = sys.argv[1]
    problems = []
    for name in SERVICES:
        path = os.path.join(root, "services", name, "Dockerfile")
        if not os.path.exists(path):
            problems.append(f"{name}: no Dockerfile")
            continue
        text = open(path).read()
        try:
            instructions = dockerfile.parse_file(path)
        except dockerfile.GoParseError as e:
            problems.append(f"{name}: BuildKit cannot parse it: {e}")
            continue
        if sum(1 for i in instructions if i.cmd == "FROM") < 3:
            problems.append(f"{name}: expected the manifests/build/runtime stages")
        stages = re.findall(r"^FROM\s+(\S+)(?:\s+AS\s+(\S+))?", text, flags=re.M | re.I)
        base = re.search(r"^ARG NODE_IMAGE=(\S+)", text, flags=re.M)
        if not base or not re.fullmatch(r"node:(22|24)(\.\d+)*-bookworm-slim(@sha256:[0-9a-f]{64})?", base.group(1)):
            problems.append(f"{name}: base image is not node 22/24 bookworm-slim")
        if len(stages) < 2:
            problems.append(f"{name}: not a multi-stage build")
        final = text[text.rfind("\nFROM "):]
        user = re.findall(r"^USER\s+(\S+)", final, flags=re.M)
        if not user or user[-1].split(":")[0] in ("0", "root") or not user[-1].split(":")[0].isdigit():
            problems.append(f"{name}: the final stage must run as a numeric non-root USER")
        for needle in ("ONNXRUNTIME_NODE_INSTALL=skip", "npm ci", "npm run build", "npm prune --omit=dev"):
            if needle not in text:
                problems.append(f"{name}: missing `{needle}`")
        if f'"dist/services/{name}/src/main.js"' not in final:
            problems.append(f"{name}: CMD does not start dist/services/{name}/src/main.js")
        models = re.search(r"^ARG WITH_MODELS=(\w+)", text, flags=re.M)
        want = "true" if name in WITH_MODELS else "false"
        if not models or models.group(1) != want:
            problems.append(f"{name}: WITH_MODELS should be {want} (only processor and standalone need the ONNX models)")
    ignore = os.path.join(root, ".dockerignore")
    entries = open(ignore).read().split() if os.path.exists(ignore) else []
    for must in ("**/node_modules", "dist", "models", ".git"):
        if must not in entries:
            problems.append(f".dockerignore does not exclude {must}")
    for p in problems:
        print(f"DOCKERFILE {p}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
