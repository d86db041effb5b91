"""neardup.Client against a real `neardup serve` on a loopback port: the answers the HTTP
API gives, as Python values; refusals as ServiceError naming the field."""
import random
import re
import subprocess

import pytest

import neardup


@pytest.fixture()
def server(cli, tmp_path):
    proc = subprocess.Popen([cli, "serve", str(tmp_path / "index"), "--listen", "127.0.0.1:0"],
                            stderr=subprocess.PIPE, text=True)
    address = None
    for line in proc.stderr:
        found = re.search(r"answering on (http://[0-9.:]+)/", line)
        if found:
            address = found.group(1)
            break
    assert address, "the server did not start"
    yield address
    proc.terminate()
    proc.wait(timeout=60)


def story(seed):
    rng = random.Random(seed)
    return " ".join(f"w{rng.randrange(20000)}" for _ in range(200))


def test_a_crawler_adds_pages_and_learns_which_it_has_seen(server):
    client = neardup.Client(server)
    first = client.add("https://example.org/a?x=1", story(1), url="https://example.org/a?x=1")
    assert first["status"] == "added"
    again = client.add("https://mirror.example.net/a", story(1))
    assert (again["status"], again["duplicate_of"]) == ("duplicate", "https://example.org/a?x=1")
    assert again["matches"][0]["similarity"] == 1.0
    assert client.check(story(2)) == {"duplicate": False, "duplicate_of": None, "matches": []}
    assert client.check(html=f"<html><body><p>{story(1)}</p></body></html>")["duplicate"]
    assert "https://example.org/a?x=1" in client
    facts = client.get("https://example.org/a?x=1")
    assert (facts["url"], facts["host"]) == ("https://example.org/a?x=1", "example.org")
    out = client.add_many([{"id": "b", "text": story(3)}, {"id": "c", "text": story(3)}])
    assert [o["status"] for o in out] == ["added", "duplicate"]
    assert [a["duplicate_of"] for a in client.check_many([{"text": story(3)}, {"text": story(4)}])] == ["b", None]
    assert client.remove("b") and not client.remove("b")
    assert client.get("b") is None
    assert client.stats()["documents"] == 1


def test_refusals_name_what_is_wrong(server):
    client = neardup.Client(server)
    with pytest.raises(neardup.ServiceError) as e:
        client.add(text="a page without an id or url")
    assert (e.value.status, e.value.field) == (400, "id")
    with pytest.raises(neardup.ServiceError) as e:
        client.check(signature=[1, 2, 3])
    assert (e.value.status, e.value.field) == (400, "signature")
    with pytest.raises(neardup.ServiceError) as e:
        client.add_many([{"id": "a", "text": "x"}, {"id": 7, "text": "y"}])
    assert (e.value.status, e.value.line) == (400, 2)
    with pytest.raises(ValueError):
        client.check("text", html="<p>and html</p>")
