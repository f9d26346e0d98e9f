"""Writes the rule groups of every PrometheusRule in a rendered manifest file as one Prometheus rules file, the
input of `promtool check rules` and `promtool test rules`.

usage: rules.py MANIFESTS.yaml RULES_OUT.yaml
"""
import sys

import yaml


def main():
    docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
    groups = [g for d in docs if d.get("kind") == "PrometheusRule" for g in d["spec"]["groups"]]
    with open(sys.argv[2], "w") as f:
        yaml.safe_dump({"groups": groups}, f, sort_keys=False, width=1000)


if __name__ == "__main__":
    main()
