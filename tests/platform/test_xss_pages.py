"""Stored and reflected XSS over every HTML page.

Every user-editable text the pages show (dataset names, descriptions and guidelines, problem texts
and their answers, equations, numbers and metadata, candidate texts, generators and prompts, label
comments, model version names and the strings inside their metrics, job errors and logs, scorer
names) holds a script payload, and so do the query parameters and form values a page echoes back.
Each page is then opened as staff, as an annotator or anonymously, and its HTML is checked:

- the raw payload never appears (no ``<script>alert(``, no ``<img src=x``);
- the parsed page has no element the payloads would create: no ``<img src=x>``, no ``on*``
  attribute, no inline script that calls ``alert``, no ``javascript:`` link, and any JSON block
  (``json_script``) parses and cannot close its ``<script>``;
- the fields the page is meant to show are there, as text: each payload (tagged with its field)
  is in the page's decoded text and its escaped form ``&lt;script&gt;`` is in the HTML. Without
  this the checks above would pass on a page that simply leaves the field out.
"""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from django.contrib.auth import get_user_model
from django.test import TestCase
from django.urls import reverse

from annotation.models import AnnotationItem, GoldLabel
from corpus.models import Dataset
from jobs.models import Job
from modelhub.models import ModelVersion
from paraphrases.models import Score

from .corpus.factories import PASSWORD, make_candidate, make_dataset, make_label, make_problem, make_user


def payload(tag: str) -> str:
    """A payload that breaks out of an attribute, opens a script and an image with an event
    handler; ``tag`` names the field it was put in (kept short: some fields hold 64 characters)."""
    return f'"><script>alert("{tag}")</script><img src=x onerror=alert("{tag}")>'


RAW_MARKERS = ("<script>alert(", "<img src=x", '"><script', "<img src=x onerror")
HISTOGRAM = {"edges": [-1.0, 0.0, 1.0], "valid": [0, 2], "invalid": [2, 0]}


class _PageParser(HTMLParser):
    """Collects what the checks need: tags with attributes, inline script bodies, visible text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.text: list[str] = []
        self._script: dict[str, str | None] | None = None
        self._script_body: list[str] = []
        self._skip_text = 0

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag == "script":
            self._script, self._script_body = attributes, []
        elif tag == "style":
            self._skip_text += 1

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._script_body)))
            self._script = None
        elif tag == "style" and self._skip_text:
            self._skip_text -= 1

    def handle_data(self, data):
        if self._script is not None:
            self._script_body.append(data)
        elif not self._skip_text:
            self.text.append(data)


class XssPagesTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.boss = make_user("boss", staff=True)
        cls.ana = make_user("ana")
        cls.ben = make_user("ben")
        cls.root = get_user_model().objects.create_superuser("root", "root@example.org", PASSWORD)

        cls.dataset = make_dataset(payload("ds-name"), annotators=[cls.ana, cls.ben, cls.boss],
                                   description=payload("ds-desc"))
        Dataset.objects.filter(pk=cls.dataset.pk).update(
            labels_per_item=2,
            guidelines=("# Rules\n\nKeep every number. " + payload("guide") + "\n\n"
                        '[a link](javascript:alert("guide-link")) <a href="javascript:alert(1)">raw</a>\n'),
        )
        cls.dataset.refresh_from_db()
        # The source, split and ids of a problem are checked formats; its text, answer, equation,
        # numbers and metadata are free text from the imported file.
        cls.problem = make_problem(
            cls.dataset, payload("problem") + " Tom has 3 apples and buys 2 more. How many apples?",
            answer=payload("answer"), equation=payload("equation"), numbers=[payload("number")],
            metadata={"note": payload("metadata")},
        )
        cls.candidate = make_candidate(cls.problem, payload("cand") + " Tom had 3 apples, then bought 2.",
                                       generator=payload("gen"), prompt=payload("prompt"),
                                       operator=payload("op")[:64])
        cls.item = AnnotationItem.objects.create(dataset=cls.dataset, candidate=cls.candidate, required_labels=2)
        # Two annotators disagree on the item: it is on the adjudication screen and the dashboard.
        make_label(cls.item, cls.ana, valid=True, comment=payload("comment"))
        make_label(cls.item, cls.ben, valid=False, comment=payload("comment-ben"))
        # Gold says valid while the active ParaQD scores the pair low: a human-model disagreement.
        GoldLabel.objects.create(candidate=cls.candidate, valid=True, source=GoldLabel.Source.AGREEMENT,
                                 note=payload("gold-note"))
        metrics = {
            "eval": {
                cls.dataset.name: {"n": 4, "macro": {"p": 0.5, "r": 0.5, "f1": 0.5, "f1_hm": 0.5},
                                   "weighted": {"p": 0.5, "r": 0.5, "f1": 0.5, "f1_hm": 0.5},
                                   "mu_pos": 0.4, "mu_neg": -0.1, "separation": 0.5, "threshold": 0.5,
                                   "evaluated_at": payload("eval-at"), "histogram": HISTOGRAM},
                payload("eval-name"): {"n": 1, "weighted": {"f1_hm": 0.5}, "separation": 0.1},
            },
            "gate": {"rule": payload("gate-rule"), "reason": payload("gate-reason"), "promoted": True,
                     "checks": [{"metric": payload("gate-metric"), "candidate": 0.5, "active": 0.4}],
                     "active": {"model": payload("gate-model")}},
            "training": {"steps": 3, "seconds": 1.0, "device": payload("device"), "final_loss": 0.1},
        }
        cls.version = ModelVersion.objects.create(
            kind="paraqd", name=payload("mv-name"), base_model=payload("mv-base"),
            status=ModelVersion.Status.ACTIVE, metrics=metrics, params={"preset": payload("preset")},
        )
        Score.objects.create(candidate=cls.candidate, scorer_version=f"paraqd:v{cls.version.pk}",
                             model_version=cls.version, paraqd=-0.9, similarity=0.05)
        # A complete generation score: the candidates page, the PQI table and plot of the dashboard.
        Score.objects.create(candidate=cls.candidate, scorer_version=payload("scorer"), similarity=0.9,
                             diversity=0.5, numeracy=1.0, bleu_diversity=0.5, wpd=0.5, pqi=0.8)
        # A judge version (not the deciding one) with a calibration: the models page shows it.
        ModelVersion.objects.create(
            kind="judge", name=payload("judge-name"), base_model="tiny",
            metrics={"calibration": {"threshold": 0.5, "method": payload("cal-method"), "auc": 0.9, "pr_auc": 0.9,
                                     "n": 4, "n_valid": 2, "fitted_at": payload("cal-at"),
                                     "reliability": [{"mean_predicted": 0.2, "observed": 0.3, "n": 2}]}},
        )
        Job.objects.create(kind=Job.Kind.EXPORT, dataset=cls.dataset, created_by=cls.boss,
                           status=Job.Status.FAILED, error=payload("job-error"), log=payload("job-log"))

    # --- the checks ---------------------------------------------------------------------------

    def assert_safe(self, response, *, shows=(), shows_json=(), status=200):
        """The response is a page without injected markup that shows each field named in ``shows``
        (and, JSON-encoded as in a metadata dump, each one named in ``shows_json``)."""
        self.assertEqual(response.status_code, status, response.content[:500])
        self.assertIn("text/html", response["Content-Type"])
        html = response.content.decode()
        for marker in RAW_MARKERS:
            self.assertFalse(marker in html, f"raw payload {marker!r} in {response.request['PATH_INFO']}")
        parser = _PageParser()
        parser.feed(html)
        parser.close()
        for tag, attrs in parser.tags:
            handlers = [name for name in attrs if name.lower().startswith("on")]
            self.assertEqual(handlers, [], f"<{tag}> with an event handler attribute: {attrs}")
            if tag == "img":
                self.assertNotEqual((attrs.get("src") or "").strip(), "x", f"injected <img>: {attrs}")
            for name in ("href", "src", "action", "formaction", "xlink:href"):
                value = re.sub(r"\s", "", attrs.get(name) or "").lower()
                self.assertFalse(value.startswith("javascript:"), f"<{tag} {name}={attrs.get(name)!r}>")
        for attrs, body in parser.scripts:
            self.assertNotIn("alert(", body, f"payload inside a <script>: {body[:200]!r}")
            if attrs.get("src"):
                self.assertEqual(body.strip(), "", "a <script src> with an inline body")
            if (attrs.get("type") or "").lower() == "application/json":  # json_script blocks
                self.assertNotRegex(body, r"(?i)</script|<!--", "a JSON block that can close its <script>")
                json.loads(body)
        text = "".join(parser.text)
        for field in shows:
            self.assertTrue(payload(field) in text, f"{field} is not shown as text on {response.request['PATH_INFO']}")
        for field in shows_json:
            encoded = json.dumps(payload(field))[1:-1]
            self.assertTrue(encoded in text, f"{field} is not shown as JSON on {response.request['PATH_INFO']}")
        if shows or shows_json:
            self.assertTrue("&lt;script&gt;alert(" in html, "the escaped payload is missing")
        return html

    def as_user(self, user):
        self.client.force_login(user)

    # --- staff pages ----------------------------------------------------------------------------

    def test_dataset_pages_as_staff(self):
        self.as_user(self.boss)
        self.assert_safe(self.client.get(reverse("dataset-list")), shows=["ds-name", "ds-desc"])
        self.assert_safe(self.client.get(reverse("dataset-detail", args=[self.dataset.pk])),
                         shows=["ds-name", "ds-desc", "problem"])
        self.assert_safe(self.client.get(reverse("problem-detail", args=[self.problem.pk])),
                         shows=["ds-name", "problem", "answer", "equation", "number", "cand", "gen"], shows_json=["metadata"])

    def test_candidates_and_generation_pages(self):
        self.as_user(self.boss)
        self.assert_safe(self.client.get(reverse("dataset-candidates", args=[self.dataset.pk])),
                         shows=["ds-name", "problem", "cand", "gen", "prompt"])
        # The generator filter echoes the generator names (and the request's choice).
        self.assert_safe(self.client.get(reverse("dataset-candidates", args=[self.dataset.pk]),
                                         {"generator": payload("gen"), "min_pqi": payload("q-pqi")}),
                         shows=["gen", "cand"])
        self.assert_safe(self.client.get(reverse("paraphrase")))

    def test_annotation_pages_as_staff(self):
        self.as_user(self.boss)
        self.assert_safe(self.client.get(reverse("annotate")), shows=["ds-name", "ds-desc"])
        html = self.assert_safe(self.client.get(reverse("annotate-dataset", args=[self.dataset.pk])),
                                shows=["ds-name", "guide"])
        # The guidelines are Markdown rendered through nh3: the Markdown survives, the HTML does not.
        self.assertIn("<h1>Rules</h1>", html)
        self.assertIn('<a title="guide-link" rel="noopener noreferrer nofollow">a link</a>', html)  # href dropped
        self.assert_safe(self.client.get(reverse("adjudicate", args=[self.dataset.pk])),
                         shows=["ds-name", "guide", "problem", "cand"])

    def test_dashboard(self):
        self.as_user(self.boss)
        html = self.assert_safe(
            self.client.get(reverse("dashboard"), {"dataset": self.dataset.pk}),
            shows=["ds-name", "cand", "problem", "mv-name", "gate-rule", "gate-reason", "gen", "scorer", "eval-at"],
        )
        self.assertIn("<svg", html)  # the histogram and the PQI plot are drawn (with the names escaped)
        self.assertIn('id="human-model-section"', html)
        # An unknown ?dataset= value is not echoed raw.
        self.assert_safe(self.client.get(reverse("dashboard"), {"dataset": payload("q-ds")}), shows=["ds-name"])

    def test_jobs_and_models_pages(self):
        self.as_user(self.boss)
        self.assert_safe(self.client.get(reverse("job-list")), shows=["job-error", "job-log", "ds-name"])
        self.assert_safe(self.client.get(reverse("model-list")),
                         shows=["mv-name", "gate-reason", "gate-rule", "gate-metric", "gate-model", "eval-name",
                                "device", "preset", "judge-name", "cal-method", "cal-at"])

    def test_reflected_values_in_search_login_and_messages(self):
        self.as_user(self.boss)
        self.assert_safe(self.client.get(reverse("dataset-detail", args=[self.dataset.pk]), {"q": payload("q")}),
                         shows=["ds-name"])
        # Form errors come back as messages that quote what was sent.
        response = self.client.post(reverse("dataset-generate", args=[self.dataset.pk]),
                                    {"generators": [payload("post-gen")], "per_problem": "1"}, follow=True)
        self.assert_safe(response, shows=["ds-name", "post-gen"])
        response = self.client.post(reverse("scanning-start"),
                                    {"datasets": [payload("post-scan")], "eval_dataset": "x"}, follow=True)
        self.assert_safe(response, shows=["post-scan"])
        self.client.logout()
        self.assert_safe(self.client.get(reverse("login"), {"next": payload("next")}))
        # A failed login re-renders the form with the username that was typed.
        self.assert_safe(self.client.post(reverse("login"), {"username": payload("user"), "password": "nope"}))

    def test_admin_pages(self):
        self.as_user(self.root)
        self.assert_safe(self.client.get(reverse("admin:corpus_dataset_changelist")), shows=["ds-name"])
        self.assert_safe(self.client.get(reverse("admin:corpus_dataset_change", args=[self.dataset.pk])))
        self.assert_safe(self.client.get(reverse("admin:corpus_problem_changelist")), shows=["answer"])
        self.assert_safe(self.client.get(reverse("admin:paraphrases_candidate_changelist")), shows=["gen", "prompt"])
        self.assert_safe(self.client.get(reverse("admin:modelhub_modelversion_changelist")), shows=["mv-name"])
        self.assert_safe(self.client.get(reverse("admin:jobs_job_changelist")), shows=["ds-name"])
        self.assert_safe(self.client.get(reverse("admin:annotation_label_changelist")))

    # --- annotator pages ------------------------------------------------------------------------

    def test_annotator_pages(self):
        self.as_user(self.ana)
        self.assert_safe(self.client.get(reverse("dataset-list")), shows=["ds-name", "ds-desc"])
        self.assert_safe(self.client.get(reverse("dataset-detail", args=[self.dataset.pk])),
                         shows=["ds-name", "problem"])
        html = self.assert_safe(self.client.get(reverse("problem-detail", args=[self.problem.pk])),
                                shows=["problem"], shows_json=["metadata"])
        self.assertNotIn("alert(&quot;cand&quot;)", html)  # labelling stays blind: no candidates
        self.assert_safe(self.client.get(reverse("annotate")), shows=["ds-name", "ds-desc"])
        self.assert_safe(self.client.get(reverse("annotate-dataset", args=[self.dataset.pk]),
                                         {"item": payload("q-item")}), shows=["ds-name", "guide"])
        self.assert_safe(self.client.get(reverse("annotate-labels", args=[self.dataset.pk])),
                         shows=["ds-name", "problem", "cand", "comment"])
        # Staff-only pages refuse with the plain 403 page.
        self.assert_safe(self.client.get(reverse("dashboard")), status=403)

    def test_the_checks_catch_an_unescaped_field(self):
        """The checker itself fails on a page that marks a payload safe, and on one that omits it."""
        from django.http import HttpResponse
        from django.test import RequestFactory

        request = RequestFactory().get("/probe/")
        for body in (f"<p>{payload('ds-name')}</p>", "<p>nothing here</p>",
                     '<script type="application/json">{"a": "</script><script>alert(1)</script>"}</script>',
                     '<a href=" javascript:alert(1)">x</a>'):
            response = HttpResponse(body)
            response.request = {"PATH_INFO": request.path}
            with self.subTest(body=body[:40]), self.assertRaises(AssertionError):
                self.assert_safe(response, shows=["ds-name"])


class PageCoverageTests(TestCase):
    # Every named page of paralab.urls, opened with payloads by the tests above; a new page fails
    # this until it is added there (or here, with the reason it shows no user text).
    OPENED = {"login", "dataset-list", "dataset-detail", "dataset-candidates", "dataset-generate", "paraphrase",
              "scanning-start", "problem-detail", "job-list", "annotate", "annotate-dataset", "annotate-labels",
              "adjudicate", "dashboard", "model-list"}
    NO_PAGE = {
        "home": "redirects to the dataset list or the labelling queue",
        "logout": "POST only; redirects to the login page",
        "model-retrain": "POST only; redirects to the models page (opened) with a fixed message",
        "model-calibrate": "POST only; redirects to the models page (opened) with a fixed message",
        "judge-refit": "POST only; redirects to the models page (opened) with the refit's numbers and reason",
        "healthz": "JSON for load balancers, no user text",
    }

    def test_every_page_is_opened_with_payloads(self):
        from paralab import urls

        names = {pattern.name for pattern in urls.urlpatterns if getattr(pattern, "name", None)}
        self.assertEqual(names - self.OPENED - set(self.NO_PAGE), set())
        self.assertEqual((self.OPENED | set(self.NO_PAGE)) - names, set())
