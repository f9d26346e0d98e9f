"""Validates docker-compose.yml against the compose-spec JSON schema, then the rules the issue adds.

usage: compose.py SCHEMA.json docker-compose.yml [PROJECT_DIR]
PROJECT_DIR (default: the compose file's folder) is where build.dockerfile paths are looked up.
"""
import os
import sys

import jsonschema
import yaml

SERVICES = ("api", "billing", "processor", "webhooks")
INFRA = ("postgres", "kafka", "minio")


def main():
    schema_path, compose_path = sys.argv[1], sys.argv[2]
    with open(schema_path) as f:
        import json
        schema = json.load(f)
    with open(compose_path) as f:
        doc = yaml.safe_load(f)
    problems = []
    validator_cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft201909Validator)
    for err in sorted(validator_cls(schema).iter_errors(doc), key=lambda e: list(e.absolute_path)):
        path = "/".join(str(p) for p in err.absolute_path) or "(root)"
        problems.append(f"schema: {path}: {err.message}")

    services = doc.get("services") or {}
    root = sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(os.path.abspath(compose_path))
    for name in INFRA:
        if "healthcheck" not in (services.get(name) or {}):
            problems.append(f"{name}: missing (or without a healthcheck)")
    for name in SERVICES:
        s = services.get(name)
        if s is None:
            problems.append(f"{name}: missing")
            continue
        build = s.get("build") or {}
        dockerfile = build.get("dockerfile")
        if dockerfile != "Dockerfile" or not os.path.exists(os.path.join(root, dockerfile)):
            problems.append(f"{name}: build.dockerfile {dockerfile!r} is not the repository's one Dockerfile")
        if (build.get("args") or {}).get("SERVICE") != name:
            problems.append(f"{name}: build.args.SERVICE is not {name!r}")
        if "healthcheck" not in s:
            problems.append(f"{name}: no healthcheck")
        deps = s.get("depends_on") or {}
        for infra, cond in (("postgres", "service_healthy"), ("kafka", "service_healthy"),
                            ("minio-init", "service_completed_successfully")):
            if not isinstance(deps, dict) or (deps.get(infra) or {}).get("condition") != cond:
                problems.append(f"{name}: depends_on {infra} should have condition {cond}")
        if s.get("read_only") is not True:
            problems.append(f"{name}: read_only root filesystem is not set")
        env = s.get("environment") or {}
        for var in ("DATABASE_URL", "KAFKA_BROKERS", "S3_ENDPOINT", "S3_BUCKET", "UPSCALE_OPERATOR_TOKEN"):
            if var not in env:
                problems.append(f"{name}: {var} is not set")
    proc = services.get("processor") or {}
    # `docker compose up --scale processor=N` fails on a fixed name or a published host port.
    if "container_name" in proc or proc.get("ports"):
        problems.append("processor: container_name or published ports prevent --scale processor=N")
    for p in problems:
        print(f"COMPOSE {compose_path}: {p}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
