"""`make demo`: start the local demo site, crawl it with this project, show what happened.

No internet is needed: every target is a *.walsh-demo.test name that the demo resolver
maps to a loopback address. The compliance summary is the crawl's last log block;
after it, the demo server's own view of the same crawl is printed.

Each run starts from a fresh state file in the output directory, so it always shows a
first run, beside any other crawl of the identity on this machine (``WALSH_SEPARATE_BOT``); a crawl
that did not run to its end shows nothing but its log and the exit status. ``--keep-state``
keeps the state: a second run within the day then sends almost
nothing, because every target was fetched less than a day ago (R8) and robots.txt and
the ledger come from the store.
"""

import os
import shutil
import socket
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The repository: demo_site is its package, not the add-on's (the wheel has no demo site).
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from demo_site import DemoSite, environ  # noqa: E402
from demo_site.access_log import combined_log  # noqa: E402
from demo_site.hosts import DEFAULT_PORT  # noqa: E402
from scrapy_walsh.identity import webbotauth  # noqa: E402


def pick_port() -> int:
    wanted = int(os.environ.get("WALSH_DEMO_PORT", DEFAULT_PORT))
    if wanted:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.2", wanted))
                return wanted
            except OSError:
                print(f"port {wanted} is busy; using a free one", file=sys.stderr)
    return 0


def demo_key(out: Path) -> Path:
    """The demo's signing key (made once, kept in the output directory) and its .pub."""
    key = out / "walsh-demo-signing.pem"
    if not key.exists():
        private = webbotauth.generate_key()
        key.write_bytes(webbotauth.private_pem(private))
        key.chmod(0o600)
        key.with_name(key.name + ".pub").write_bytes(webbotauth.public_pem(private))
    return key.resolve()


def main() -> int:
    out = Path(os.environ.get("WALSH_DEMO_OUTPUT", HERE / "output"))
    out.mkdir(parents=True, exist_ok=True)
    state = out / "walsh-state.sqlite3"
    journal = out / "walsh-state.journal"
    if "--keep-state" not in sys.argv[1:]:
        for leftover in out.glob("walsh-state.sqlite3*"):
            leftover.unlink()
        shutil.rmtree(journal, ignore_errors=True)
    key = demo_key(out)
    with DemoSite(port=pick_port(), log_path=out / "server-requests.jsonl") as site:
        # a throwaway Web Bot Auth key: the requests and the journal's heads are signed with it
        agent = site.publish_directory(webbotauth.directory([webbotauth.load_private_key(key)]))
        print(f"demo site on port {site.port}; crawling it with example_project/", flush=True)
        # the crawl's settings name the demo's resolver: the crawl imports demo_site from here too
        env = dict(environ(), WALSH_DEMO_PORT=str(site.port))
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "scrapy",
                "crawl",
                "demo",
                "-O",
                str(out / "items.jsonl"),
                "-s",
                f"WALSH_STATE_URI=sqlite:///{state.resolve()}",
                "-s",
                f"WALSH_SIGNING_KEY={key}",
                "-s",
                f"WALSH_SIGNATURE_AGENT={agent}",
                # its own store, beside whatever else of the identity crawls on this machine: the
                # demo's hosts are its own loopback names, which no other crawl paces
                "-s",
                "WALSH_SEPARATE_BOT=True",
            ],
            cwd=HERE,
            env=env,
        )
        records = site.requests
    if proc.returncode != 0:
        print(
            f"\nthe demo crawl did not run to its end (exit {proc.returncode}): its log above says why", file=sys.stderr
        )
        return proc.returncode
    by_host = defaultdict(list)
    for r in records:
        by_host[r["host"]].append(r)
    print("\nWhat the demo server saw:")
    for host, rs in sorted(by_host.items()):
        rs.sort(key=lambda r: r["mono"])
        gaps = [b["mono"] - a["mono"] for a, b in zip(rs, rs[1:])]
        uas = {r["headers"].get("User-Agent") for r in rs}
        gap = f"min gap {min(gaps):.3f} s" if gaps else "single request"
        print(f"  {host:32} {len(rs):3} requests, {gap}, user-agents: {sorted(map(str, uas))}")
    print(f"  most requests in flight at once: {max((r['in_flight'] for r in records), default=0)}")
    logs = out / "access-logs"
    logs.mkdir(exist_ok=True)
    for host in by_host:  # each host's access log, as its owner would have it (combined format)
        (logs / f"{host}.log").write_text(combined_log(records, host))
    print(f"\nthe crawl's journal: {journal}; a site owner's view of one host:")
    print(f"  scrapy walsh journal verify {journal} --key {key}.pub")
    print(f"  scrapy walsh journal show --journal {journal} --host open.walsh-demo.test --key {key}.pub")
    report = f"--host open.walsh-demo.test --html open.html --key {key}.pub"
    print(f"  scrapy walsh journal report --journal {journal} {report}")
    log = logs / "open.walsh-demo.test.log"
    print(f"  scrapy walsh journal match --journal {journal} --host open.walsh-demo.test {log}")
    print(f"\nitems: {out / 'items.jsonl'}; server log: {out / 'server-requests.jsonl'}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
