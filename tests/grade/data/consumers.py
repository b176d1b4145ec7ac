#!/usr/bin/env python3
"""Reads a file cudalab wrote the way its consumers do, and prints what
they saw as JSON (ASCII only), for tests/grade/test_grade_exports.c.

  consumers.py csv FILE    the rows, through Python's csv module
  consumers.py html FILE   the tags, attributes and cell texts, through html.parser
  consumers.py xml FILE    JUnit's properties, test names and failures, through
                           xml.etree (expat)
  consumers.py json FILE   the document, decoded as strict UTF-8 and strict JSON
"""
import csv
import html.parser
import json
import sys
import xml.etree.ElementTree as ET


def read_csv(path):
    with open(path, newline="", encoding="utf-8", errors="strict") as f:
        return [row for row in csv.reader(f, strict=True)]


class Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.rows, self.items = set(), [], [], []
        self.cell = None
        self.item = None

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs.extend(name for name, _ in attrs)
        if tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self.cell = ""
        elif tag == "li":
            self.item = ""

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None
        elif tag == "li" and self.item is not None:
            self.items.append(self.item)
            self.item = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        if self.item is not None:
            self.item += data


def read_html(path):
    p = Cells()
    with open(path, encoding="utf-8", errors="strict") as f:
        p.feed(f.read())
    p.close()
    return {"tags": sorted(p.tags), "attrs": sorted(set(p.attrs)), "rows": p.rows,
            "items": p.items}


def read_xml(path):
    root = ET.parse(path).getroot()
    suite = root.find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    cases = [{"name": c.get("name"), "failure": [(f.get("message"), f.text)
                                                  for f in c.findall("failure")]}
             for c in root.iter("testcase")]
    return {"name": root.get("name"), "properties": props, "cases": cases}


def read_json(path):
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8", errors="strict"))


def main():
    kind, path = sys.argv[1], sys.argv[2]
    seen = {"csv": read_csv, "html": read_html, "xml": read_xml, "json": read_json}[kind](path)
    print(json.dumps(seen, ensure_ascii=True))


if __name__ == "__main__":
    main()
