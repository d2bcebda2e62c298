"""Reading Prometheus text from a site's /metrics (standard library only)."""
import urllib.request


def scrape(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.read().decode()


def value(text, name, *labels):
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name) and line[len(name):len(name) + 1] in ("{", " ") \
                and all(label in line for label in labels):
            total += float(line.rsplit(" ", 1)[1])
    return total
