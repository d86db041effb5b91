#!/usr/bin/env python3
"""A crawl's heavy clusters added to a corpus: exact and near copies of a few pages (a 404
page, a parked domain, a cookie wall, a syndicated story), as web crawls hold them.

    python3 scripts/make_heavy_corpus.py --corpus corpus-200000.jsonl --truth corpus-200000.truth.csv \\
        --exact 20000 --near 20000 --out heavy-200000.jsonl --truth-out heavy-200000.truth.csv

The corpus is copied line by line; then `--exact` copies of the pages (spread over them) and
`--near` copies with 1 % of their words substituted, seeded (`--seed`). The truth file (the
peers' planted pairs, `id_a,id_b`) gains each copy paired with its page's first copy, so the
benchmark's pair metrics count the copies found. Used by `just bench-dedup` (issue 51).
"""
import argparse
import random
import shutil

PAGES = [
    "404 Not Found. The page you requested could not be found on this server. It may have been "
    "moved, renamed or deleted. Please check the address for typing errors, go back to the "
    "previous page or visit our home page to find what you are looking for. If you think this "
    "is an error, contact the site administrator and tell us the address of the page and how "
    "you reached it. Popular sections: news, sports, weather, business, technology, science, "
    "health, entertainment, opinion, travel, food and the archive.",
    "This domain name is for sale. The owner of this domain has parked it with our service and "
    "is accepting offers from interested buyers. Make an offer today and our brokers will "
    "contact the owner on your behalf. Related searches: cheap flights, car insurance, online "
    "degrees, mortgage rates, web hosting, credit cards, free games, dating sites, diet plans "
    "and holiday rentals. Privacy policy and terms of use apply to every visit of this page.",
    "We value your privacy. We and our partners store and access information on your device, "
    "such as cookies and unique identifiers, and process personal data such as browsing "
    "history for personalised advertising and content, advertising and content measurement, "
    "audience research and services development. You may accept all, reject all or manage your "
    "choices at any time by clicking the privacy settings link at the bottom of every page.",
    "WASHINGTON (wire) - Lawmakers reached a tentative agreement late on Tuesday to keep the "
    "government funded through the end of the fiscal year, averting a shutdown that would have "
    "furloughed hundreds of thousands of federal workers. The deal, negotiated over several "
    "weeks, includes increases for defence and infrastructure spending and modest cuts "
    "elsewhere, aides familiar with the talks said. Both chambers are expected to vote this week.",
]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", required=True)
    p.add_argument("--truth", help="the corpus's planted pairs (id_a,id_b), copied first")
    p.add_argument("--exact", type=int, required=True)
    p.add_argument("--near", type=int, required=True)
    p.add_argument("--rate", type=float, default=0.01, help="words substituted in a near copy")
    p.add_argument("--seed", type=int, default=51)
    p.add_argument("--out", required=True)
    p.add_argument("--truth-out")
    a = p.parse_args()
    import json

    rng = random.Random(a.seed)
    shutil.copyfile(a.corpus, a.out)
    truth = []
    with open(a.out, "a") as out:
        for i in range(a.exact + a.near):
            page = i % len(PAGES)
            words = PAGES[page].split()
            if i >= a.exact:
                words = [w if rng.random() >= a.rate else f"x{rng.randrange(10**9)}" for w in words]
            doc = f"heavy-{page}-{i}"
            out.write(json.dumps({"id": doc, "text": " ".join(words)}) + "\n")
            if i >= len(PAGES):
                truth.append((f"heavy-{page}-{page}", doc))
    if a.truth_out:
        if a.truth:
            shutil.copyfile(a.truth, a.truth_out)
        with open(a.truth_out, "a") as t:
            for x, y in truth:
                t.write(f"{x},{y}\n")
    print(f"{a.out}: the corpus plus {a.exact} exact and {a.near} near copies of {len(PAGES)} pages "
          f"(seed {a.seed}, rate {a.rate})")


if __name__ == "__main__":
    main()
