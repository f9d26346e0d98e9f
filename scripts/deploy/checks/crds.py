"""Validates the custom resources of a rendered manifest file against the schemas of their CRDs, strictly (an
unknown field is an error, as with `kubectl apply --validate=strict`), and writes the other objects to a second
file for the Kubernetes JSON schemas (kubernetes-validate knows no custom kind).

usage: crds.py CRD_DIR MANIFESTS.yaml REST_OUT.yaml
CRD_DIR holds CustomResourceDefinition YAML files (install-tools.sh fetches the Prometheus Operator's from its Go
module). Prints one line per problem and per validated object; exits 1 on any problem.
"""
import copy
import glob
import os
import re
import sys

import jsonschema
import yaml

DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$"


def strict(schema):
    """openAPIV3Schema -> JSON schema: unknown fields refused where the CRD lists the fields and keeps no others."""
    s = copy.deepcopy(schema)

    def walk(node):
        if not isinstance(node, dict):
            return
        if node.pop("nullable", False) and "type" in node:
            node["type"] = [node["type"], "null"]
        if node.pop("x-kubernetes-int-or-string", False):
            node.pop("type", None)
            node.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
        preserve = node.pop("x-kubernetes-preserve-unknown-fields", False)
        if "properties" in node and "additionalProperties" not in node and not preserve:
            node["additionalProperties"] = False
        for key in ("properties", "patternProperties", "definitions"):
            for child in (node.get(key) or {}).values():
                walk(child)
        for key in ("items", "additionalProperties", "not"):
            walk(node.get(key))
        for key in ("allOf", "anyOf", "oneOf"):
            for child in node.get(key) or []:
                walk(child)

    walk(s)
    # The API server checks metadata itself; here: a valid name and string labels/annotations.
    s.setdefault("properties", {})["metadata"] = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "pattern": DNS_SUBDOMAIN},
            "namespace": {"type": "string"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    }
    return s


def load_crds(crd_dir):
    schemas = {}
    for path in sorted(glob.glob(os.path.join(crd_dir, "*.yaml"))):
        for crd in yaml.safe_load_all(open(path)):
            if not crd or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for v in crd["spec"]["versions"]:
                if v.get("served"):
                    schemas[(f"{group}/{v['name']}", kind)] = strict(v["schema"]["openAPIV3Schema"])
    return schemas


def main():
    crd_dir, manifests, rest_out = sys.argv[1:4]
    schemas = load_crds(crd_dir)
    if not schemas:
        print(f"CRD no CustomResourceDefinition in {crd_dir}")
        sys.exit(1)
    groups = {api.split("/")[0] for api, _ in schemas}
    text = open(manifests).read()
    problems, rest, checked = [], [], 0
    for raw in re.split(r"^---\s*$", text, flags=re.M):
        doc = yaml.safe_load(raw)
        if not doc:
            continue
        api, kind = doc.get("apiVersion", ""), doc.get("kind", "")
        if api.split("/")[0] not in groups:
            rest.append(raw.strip("\n"))
            continue
        name = f"{kind}/{(doc.get('metadata') or {}).get('name')}"
        schema = schemas.get((api, kind))
        if schema is None:
            problems.append(f"{name}: {api} {kind} is not a kind the CRDs in {crd_dir} serve")
            continue
        checked += 1
        validator = jsonschema.Draft7Validator(schema)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for err in errors:
            where = "/".join(str(p) for p in err.absolute_path) or "(root)"
            problems.append(f"{name}: {where}: {err.message}")
        if not errors:
            print(f"ok   {name} ({api})")
    with open(rest_out, "w") as f:
        f.write("---\n" + "\n---\n".join(rest) + "\n")
    for p in problems:
        print(f"CRD {manifests}: {p}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
