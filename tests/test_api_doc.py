"""docs/api.md lists every public member of Cluster (so the one page stays complete)."""

import re
from pathlib import Path

from minikafka.cluster import Cluster

API_DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"


def test_every_public_member_of_cluster_is_documented():
    text = API_DOC.read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-z_]+)(?:\(|`)", text))
    public = {name for name in dir(Cluster) if not name.startswith("_")}
    assert public - documented == set()
