"""The /jobs/ page: staff only, a progress bar per job, live updates from jobs.js."""
from __future__ import annotations

from django.contrib.staticfiles import finders
from django.test import TestCase
from django.urls import reverse

from jobs.models import Job
from tests.platform.corpus.factories import make_dataset, make_user


class JobPageTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.staff = make_user("boss", staff=True)
        cls.annotator = make_user("ann")
        dataset = make_dataset("algebra")
        cls.running = Job.objects.create(
            kind=Job.Kind.IMPORT_PROBLEMS, status=Job.Status.RUNNING, progress=0.45, dataset=dataset,
            log="[10:00:00] read 100 problems\n",
        )
        cls.failed = Job.objects.create(
            kind=Job.Kind.TRAIN, status=Job.Status.FAILED, progress=0.2,
            error="data.csv, line 3: <b>bad</b> field", created_by=cls.staff,
        )

    def test_only_staff_may_open_it(self):
        url = reverse("job-list")
        self.assertTrue(self.client.get(url)["Location"].startswith("/login/"))
        self.client.force_login(self.annotator)
        # A refusal, not a trip to /login/: the login page would send a logged-in user back here.
        response = self.client.get(url, follow=True)
        self.assertEqual(response.status_code, 403)
        self.assertEqual(response.redirect_chain, [])
        self.assertNotContains(response, "Import problems", status_code=403)

    def test_every_job_has_a_progress_bar_status_error_and_log(self):
        self.client.force_login(self.staff)
        response = self.client.get(reverse("job-list"))
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, f'data-job-url="/api/v1/jobs/{self.running.pk}/"')
        self.assertContains(response, 'data-status="running"')
        self.assertContains(response, "width: 45%")
        self.assertContains(response, 'aria-valuenow="45"')
        self.assertContains(response, "read 100 problems")
        self.assertContains(response, "data.csv, line 3: &lt;b&gt;bad&lt;/b&gt; field")
        self.assertNotContains(response, "<b>bad</b>")
        self.assertContains(response, "paralab/jobs.js")

    def test_a_job_the_reaper_put_back_says_so(self):
        requeued = Job.objects.create(
            kind=Job.Kind.TRAIN, status=Job.Status.QUEUED, attempts=1, requeues=1,
            log="[10:00:00] re-queued by the reaper: the worker was lost (no heartbeat since 09:59:00 UTC) during attempt 1\n",
        )
        self.client.force_login(self.staff)
        response = self.client.get(reverse("job-list"))
        self.assertContains(response, 'data-field="requeued"', count=1)
        self.assertContains(response, "re-queued after a lost worker")
        self.assertContains(response, "the worker was lost (no heartbeat since 09:59:00 UTC)")
        self.assertEqual(self.client.get(f"/api/v1/jobs/{requeued.pk}/").json()["requeues"], 1)

    def test_the_script_polls_the_job_endpoint_it_points_at(self):
        self.client.force_login(self.staff)
        self.assertEqual(self.client.get(f"/api/v1/jobs/{self.running.pk}/").json()["progress"], 0.45)
        script = finders.find("paralab/jobs.js")
        self.assertIsNotNone(script, "templates/static/paralab/jobs.js is missing")
        source = open(script, encoding="utf-8").read()
        self.assertIn("2000", source)
        self.assertIn("X-CSRFToken", source)
        self.assertNotIn("innerHTML", source)
        self.assertIsNotNone(finders.find("paralab/site.css"))


class JobPagePaginationTests(TestCase):
    def test_fifty_jobs_a_page_newest_first_with_links_both_ways(self):
        staff = make_user("boss", staff=True)
        Job.objects.bulk_create([Job(kind=Job.Kind.EXPORT, status=Job.Status.SUCCEEDED) for _ in range(51)])
        self.client.force_login(staff)
        first = self.client.get(reverse("job-list")).content.decode()
        self.assertIn("Page 1 of 2", first)
        self.assertIn('href="?page=2" rel="next">Older ›</a>', first)
        self.assertNotIn('rel="prev"', first)
        second = self.client.get(reverse("job-list"), {"page": 2}).content.decode()
        self.assertIn('href="?page=1" rel="prev">‹ Newer</a>', second)
        self.assertEqual(second.count("data-job-id="), 1)
