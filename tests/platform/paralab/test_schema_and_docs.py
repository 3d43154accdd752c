"""``GET api/v1/schema/``: YAML as before, JSON with ``?format=json``; the API docs page leads back
to the site and opens folded by tag with a filter."""
from __future__ import annotations

import json

import yaml
from django.test import TestCase
from django.urls import reverse


class SchemaFormatTests(TestCase):
    def test_default_stays_yaml(self):
        response = self.client.get(reverse("api-schema"))
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response["Content-Type"].split(";")[0], "application/vnd.oai.openapi")
        self.assertIn("openapi", yaml.safe_load(response.content))

    def test_format_json_answers_json(self):
        response = self.client.get(reverse("api-schema"), {"format": "json"})
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response["Content-Type"].split(";")[0], "application/json")
        schema = json.loads(response.content)
        self.assertIn("/api/v1/datasets/{dataset_id}/import/", schema["paths"])

    def test_format_yaml_and_an_unknown_format(self):
        response = self.client.get(reverse("api-schema"), {"format": "yaml"})
        self.assertEqual(response["Content-Type"].split(";")[0], "application/vnd.oai.openapi")
        self.assertIn("paths", yaml.safe_load(response.content))
        unknown = self.client.get(reverse("api-schema"), {"format": "xml"}, HTTP_ACCEPT="application/json")
        self.assertEqual(unknown.status_code, 404)
        self.assertIn("json or yaml", unknown.json()["detail"])

    def test_the_accept_header_still_negotiates(self):
        response = self.client.get(reverse("api-schema"), HTTP_ACCEPT="application/json")
        self.assertEqual(response["Content-Type"].split(";")[0], "application/json")


class ApiDocsPageTests(TestCase):
    def test_the_docs_lead_back_to_the_site_and_fold_by_tag(self):
        response = self.client.get(reverse("api-docs"))
        self.assertEqual(response.status_code, 200)
        html = response.content.decode()
        self.assertIn(f'href="{reverse("home")}" id="docs-home"', html)
        self.assertIn(f'href="{reverse("api-schema")}?format=json"', html)
        self.assertIn('"docExpansion": "none"', html)
        self.assertIn('"filter": true', html)
        self.assertIn('id="swagger-ui"', html)
