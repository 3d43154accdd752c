"""The browsable dataset and problem pages: login, role scoping, search, highlighting, escaping."""
from __future__ import annotations

from django.test import TestCase
from django.urls import reverse

from corpus.models import Problem

from .factories import (
    PASSWORD,
    make_candidate,
    make_dataset,
    make_gold,
    make_item,
    make_label,
    make_problem,
    make_problems,
    make_score,
    make_user,
)


class PagesNeedLoginTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.dataset = make_dataset("algebra")
        cls.problem = make_problem(cls.dataset, "Tom has 3 apples.")

    def test_anonymous_users_are_sent_to_the_login_page(self):
        urls = [
            "/",
            reverse("dataset-list"),
            reverse("dataset-detail", args=[self.dataset.pk]),
            reverse("problem-detail", args=[self.problem.pk]),
            reverse("job-list"),
        ]
        for url in urls:
            with self.subTest(url=url):
                response = self.client.get(url)
                self.assertEqual(response.status_code, 302)
                self.assertTrue(response["Location"].startswith("/login/?next="), response["Location"])

    def test_login_page_logs_in_and_home_leads_to_the_datasets(self):
        make_user("ana", staff=True)
        page = self.client.get("/login/")
        self.assertContains(page, 'name="username"')
        self.assertContains(page, "csrfmiddlewaretoken")
        response = self.client.post("/login/", {"username": "ana", "password": PASSWORD})
        self.assertRedirects(response, "/", fetch_redirect_response=False)
        self.assertRedirects(self.client.get("/"), reverse("dataset-list"))

    def test_logout_is_a_post_form_in_the_navigation(self):
        user = make_user("ana")
        self.client.force_login(user)
        page = self.client.get(reverse("dataset-list"))
        self.assertContains(page, f'action="{reverse("logout")}"')
        self.assertContains(page, 'method="post"')
        self.assertEqual(self.client.post(reverse("logout")).status_code, 302)
        self.assertEqual(self.client.get(reverse("dataset-list")).status_code, 302)


class RoleScopingTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.staff = make_user("boss", staff=True)
        cls.annotator = make_user("ann")
        cls.other_annotator = make_user("otto")
        cls.mine = make_dataset("mine-dataset", annotators=[cls.annotator])
        cls.theirs = make_dataset("theirs-dataset", annotators=[cls.other_annotator])
        cls.my_problem = make_problem(cls.mine, "A car drives 60 km.")
        cls.their_problem = make_problem(cls.theirs, "A bus drives 80 km.")

    def test_staff_see_every_dataset(self):
        self.client.force_login(self.staff)
        page = self.client.get(reverse("dataset-list"))
        self.assertContains(page, "mine-dataset")
        self.assertContains(page, "theirs-dataset")
        for dataset in (self.mine, self.theirs):
            self.assertEqual(self.client.get(reverse("dataset-detail", args=[dataset.pk])).status_code, 200)
        self.assertContains(page, "Jobs")
        self.assertContains(page, "Admin")

    def test_an_annotator_sees_only_their_datasets(self):
        self.client.force_login(self.annotator)
        page = self.client.get(reverse("dataset-list"))
        self.assertContains(page, "mine-dataset")
        self.assertNotContains(page, "theirs-dataset")
        self.assertNotContains(page, reverse("job-list"))
        self.assertNotContains(page, "/admin/")
        self.assertContains(page, "/api/v1/docs/")
        self.assertEqual(self.client.get(reverse("dataset-detail", args=[self.mine.pk])).status_code, 200)
        self.assertEqual(self.client.get(reverse("problem-detail", args=[self.my_problem.pk])).status_code, 200)

    def test_another_teams_dataset_and_problem_are_404_like_missing_ones(self):
        self.client.force_login(self.annotator)
        missing = max(self.mine.pk, self.theirs.pk) + 100
        for url in (
            reverse("dataset-detail", args=[self.theirs.pk]),
            reverse("dataset-detail", args=[missing]),
            reverse("problem-detail", args=[self.their_problem.pk]),
            reverse("problem-detail", args=[self.their_problem.pk + 100]),
        ):
            with self.subTest(url=url):
                response = self.client.get(url)
                self.assertEqual(response.status_code, 404)
                self.assertNotContains(response, "theirs-dataset", status_code=404)
                self.assertNotContains(response, "A bus drives", status_code=404)

    def test_a_user_with_no_dataset_gets_an_empty_list(self):
        loner = make_user("loner")
        self.client.force_login(loner)
        page = self.client.get(reverse("dataset-list"))
        self.assertContains(page, "not assigned to any dataset")
        self.assertEqual(list(page.context["datasets"]), [])


class DatasetPageTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.staff = make_user("boss", staff=True)
        cls.dataset = make_dataset("big")
        make_problems(cls.dataset, 120)
        cls.trains = [
            make_problem(cls.dataset, "A train leaves at 9 and travels 240 km.", split="train"),
            make_problem(cls.dataset, "The train is 12 minutes late.", split="train"),
        ]
        cls.dev = make_problem(cls.dataset, "A kettle holds 1.5 litres of water.", split="dev")
        cls.test = make_problem(cls.dataset, "A train costs $30 for 2 people.", split="test")
        candidate = make_candidate(cls.dev, "A kettle can hold 1.5 litres of water.")
        make_gold(candidate, valid=True)
        make_label(make_item(cls.dataset, candidate), make_user("ann"), valid=True)

    def setUp(self):
        self.client.force_login(self.staff)
        self.url = reverse("dataset-detail", args=[self.dataset.pk])

    def ids(self, response) -> list[int]:
        return [problem.pk for problem in response.context["page"].object_list]

    def test_counts_per_split_candidates_and_labels(self):
        counts = self.client.get(self.url).context["counts"]
        self.assertEqual(counts.problems, 124)
        self.assertEqual(dict(counts.per_split), {"train": 2, "dev": 1, "test": 1, "": 120})
        self.assertEqual((counts.candidates, counts.annotation_items, counts.labels, counts.gold_labels), (1, 1, 1, 1))

    def test_fifty_problems_per_page_and_the_pages_keep_the_filter(self):
        first = self.client.get(self.url)
        self.assertEqual(len(self.ids(first)), 50)
        self.assertEqual(first.context["page"].paginator.num_pages, 3)
        last = self.client.get(self.url, {"page": 3})
        self.assertEqual(len(self.ids(last)), 24)
        filtered = self.client.get(self.url, {"q": "apples", "split": "none"})
        self.assertEqual(filtered.context["page"].paginator.count, 120)
        self.assertContains(filtered, "?q=apples&amp;split=none&amp;page=2")

    def test_search_matches_text_case_insensitively(self):
        response = self.client.get(self.url, {"q": "TRAIN"})
        self.assertEqual(sorted(self.ids(response)), sorted([*[p.pk for p in self.trains], self.test.pk]))
        self.assertContains(response, 'value="TRAIN"')

    def test_split_filter_and_search_combine(self):
        self.assertEqual(self.ids(self.client.get(self.url, {"split": "dev"})), [self.dev.pk])
        self.assertEqual(self.ids(self.client.get(self.url, {"split": "test", "q": "train"})), [self.test.pk])
        self.assertEqual(self.ids(self.client.get(self.url, {"split": "dev", "q": "train"})), [])
        self.assertEqual(self.client.get(self.url, {"split": "none"}).context["page"].paginator.count, 120)

    def test_an_unknown_split_is_no_filter(self):
        response = self.client.get(self.url, {"split": "bogus"})
        self.assertEqual(response.context["page"].paginator.count, 124)
        self.assertEqual(response.context["split"], "")

    def test_search_finds_a_source_id(self):
        problem = Problem.objects.get(dataset=self.dataset, source_id="17")
        self.assertEqual(self.ids(self.client.get(self.url, {"q": "17"}))[:1], [problem.pk])


class ProblemPageTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.staff = make_user("boss", staff=True)
        cls.annotator = make_user("ann")
        cls.dataset = make_dataset("shop", annotators=[cls.annotator])
        cls.problem = make_problem(
            cls.dataset,
            "Maya buys 3 notebooks at $4.50 each and saves 25%. How much, in dollars, does she pay?",
            answer="10.125",
            equation="x = 3 * 4.50 * (1 - 0.25)",
            split="train",
            metadata={"topic": "<b>money</b>"},
        )
        cls.hostile = make_problem(
            cls.dataset, "<script>alert('pwned')</script> A box holds 12 <b>eggs</b>. How many in 3 boxes?"
        )
        candidate = make_candidate(
            cls.problem, "Maya pays for 3 notebooks costing $4.50 each <img src=x onerror=alert(1)>."
        )
        make_score(candidate, "metrics:1", pqi=0.8123, paraqd=0.5, similarity=0.75, numeracy=1.0, diversity=0.4)
        make_gold(candidate, valid=False)

    def page(self, problem, user=None):
        self.client.force_login(user or self.staff)
        return self.client.get(reverse("problem-detail", args=[problem.pk]))

    def test_numbers_are_highlighted(self):
        response = self.page(self.problem)
        for number in ("3", "4.50", "25%"):
            self.assertContains(response, f'<mark class="num">{number}</mark>')
        self.assertContains(response, "10.125")
        self.assertContains(response, "x = 3 * 4.50 * (1 - 0.25)")

    def test_problem_text_metadata_and_candidates_are_escaped(self):
        response = self.page(self.hostile)
        self.assertContains(response, "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;")
        self.assertNotContains(response, "<script>alert")
        self.assertNotContains(response, "<b>eggs</b>")
        self.assertContains(response, '<mark class="num">12</mark> &lt;b&gt;eggs&lt;/b&gt;')

        response = self.page(self.problem)
        self.assertNotContains(response, "<b>money</b>")
        self.assertContains(response, "&lt;b&gt;money&lt;/b&gt;")
        self.assertNotContains(response, "<img src=x")
        self.assertContains(response, "&lt;img src=x onerror=alert(")

    def test_staff_see_candidates_with_scores_and_gold_labels(self):
        response = self.page(self.problem)
        self.assertContains(response, "Maya pays for")
        self.assertContains(response, "0.812")
        self.assertContains(response, ">invalid<")

    def test_annotators_see_the_problem_but_not_scores_or_gold_labels(self):
        response = self.page(self.problem, self.annotator)
        self.assertContains(response, '<mark class="num">4.50</mark>')
        self.assertNotContains(response, "Maya pays for")
        self.assertNotContains(response, "0.812")
        self.assertIsNone(response.context["candidates"])
