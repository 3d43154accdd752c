"""Password guessing is throttled on both doors: the login form and POST auth/token/.

One budget, the "auth" rate, counted per client address and per username tried (paralab.throttling).
The rate is read at request time, so the tests set a small one with override_settings; the counters
live in the cache, which each test clears before and after (a cleared cache is a window gone by).
"""
from __future__ import annotations

from unittest import mock

from django.conf import settings
from django.core.cache import cache
from django.test import TestCase, override_settings
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from paralab.throttling import AuthAddressThrottle

from .corpus.factories import PASSWORD, make_user

RATE = 3


def _rest_framework(**changes):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "auth": f"{RATE}/min"}
    return {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates, **changes}


@override_settings(REST_FRAMEWORK=_rest_framework())
class AuthThrottleTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.ana = make_user("ana")
        cls.ben = make_user("ben")

    def setUp(self):
        cache.clear()
        self.addCleanup(cache.clear)
        self.login_url = reverse("login")
        self.token_url = reverse("api-token")

    def login(self, username, password="wrong", **extra):
        return self.client.post(self.login_url, {"username": username, "password": password}, **extra)

    def token(self, username, password="wrong", **extra):
        return APIClient().post(self.token_url, {"username": username, "password": password}, format="json", **extra)

    def assert_throttled(self, response):
        self.assertEqual(response.status_code, 429, getattr(response, "data", response.content[:300]))
        self.assertGreaterEqual(int(response["Retry-After"]), 1)
        self.assertLessEqual(int(response["Retry-After"]), 60)

    # --- the login form ---------------------------------------------------------------------

    def test_login_form_refuses_over_the_limit_and_works_again_after_the_window(self):
        for _ in range(RATE):
            response = self.login("ana")
            self.assertEqual(response.status_code, 200)  # the form again, with its error
            self.assertContains(response, "Please enter a correct username and password")
        # Over the limit even the right password is refused, and nobody is logged in.
        response = self.login("ana", PASSWORD)
        self.assert_throttled(response)
        self.assertContains(response, "Too many login attempts", status_code=429)
        self.assertContains(response, 'value="ana"', status_code=429)  # the form keeps the username
        self.assertNotIn("_auth_user_id", self.client.session)
        cache.clear()  # the window has passed
        response = self.login("ana", PASSWORD)
        self.assertRedirects(response, settings.LOGIN_REDIRECT_URL, fetch_redirect_response=False)
        self.assertEqual(int(self.client.session["_auth_user_id"]), self.ana.pk)

    def test_a_throttled_login_does_not_check_the_password(self):
        for _ in range(RATE):
            self.login("ana")
        with mock.patch("django.contrib.auth.forms.authenticate") as authenticate:
            self.assert_throttled(self.login("ana", PASSWORD))
        authenticate.assert_not_called()

    def test_one_address_guessing_many_accounts_is_throttled(self):
        for i in range(RATE):
            self.assertEqual(self.login(f"user{i}").status_code, 200)
        self.assert_throttled(self.login("ben", PASSWORD))

    def test_one_account_guessed_from_many_addresses_is_throttled(self):
        for i in range(RATE):
            self.assertEqual(self.login("ana", REMOTE_ADDR=f"10.0.0.{i + 1}").status_code, 200)
        self.assert_throttled(self.login("ANA", PASSWORD, REMOTE_ADDR="10.0.0.99"))  # usernames fold case
        # Another account from a fresh address is not affected.
        self.assertEqual(self.login("ben", PASSWORD, REMOTE_ADDR="10.0.1.1").status_code, 302)

    def test_a_made_up_forwarded_for_header_does_not_dodge_the_limit(self):
        for i in range(RATE):
            self.login(f"user{i}", HTTP_X_FORWARDED_FOR=f"203.0.113.{i}")
        self.assert_throttled(self.login("ben", PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.200"))

    @override_settings(REST_FRAMEWORK=_rest_framework(NUM_PROXIES=1))
    def test_behind_the_proxy_the_address_it_appended_counts(self):
        # The client writes the first entries, the proxy appends the address it saw.
        for i in range(RATE):
            self.login(f"user{i}", HTTP_X_FORWARDED_FOR=f"198.51.100.{i}, 192.0.2.7")
        self.assert_throttled(self.login("ben", PASSWORD, HTTP_X_FORWARDED_FOR="198.51.100.9, 192.0.2.7"))
        # Another client behind the same proxy still gets in.
        self.assertEqual(self.login("ben", PASSWORD, HTTP_X_FORWARDED_FOR="192.0.2.8").status_code, 302)

    def test_get_of_the_login_page_is_not_counted(self):
        for _ in range(RATE + 2):
            self.assertEqual(self.client.get(self.login_url).status_code, 200)
        self.assertEqual(self.login("ana", PASSWORD).status_code, 302)

    # --- the token endpoint -------------------------------------------------------------------

    def test_token_endpoint_refuses_over_the_limit_and_works_again_after_the_window(self):
        for _ in range(RATE):
            self.assertEqual(self.token("ana").status_code, 400)
        response = self.token("ana", PASSWORD)
        self.assert_throttled(response)
        self.assertNotIn("token", response.data)
        self.assertIn("throttled", str(response.data["detail"]).lower())
        cache.clear()
        response = self.token("ana", PASSWORD)
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response.data["token"], Token.objects.get(user=self.ana).key)

    def test_token_endpoint_throttles_one_account_across_addresses(self):
        for i in range(RATE):
            self.token("ana", REMOTE_ADDR=f"10.0.0.{i + 1}")
        self.assert_throttled(self.token("ana", PASSWORD, REMOTE_ADDR="10.0.0.99"))
        self.assertEqual(self.token("ben", PASSWORD, REMOTE_ADDR="10.0.1.1").status_code, 200)

    def test_the_form_and_the_api_share_one_budget(self):
        self.login("ana")
        self.token("ben")
        self.login("carol")
        self.assert_throttled(self.token("ben", PASSWORD))
        self.assert_throttled(self.login("ben", PASSWORD))


class AuthRateSettingTests(TestCase):
    def test_the_rate_comes_from_the_settings_at_request_time(self):
        configured = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["auth"]
        self.assertTrue(configured)
        self.assertEqual(AuthAddressThrottle().rate, configured)
        with override_settings(REST_FRAMEWORK=_rest_framework()):
            throttle = AuthAddressThrottle()
            self.assertEqual((throttle.num_requests, throttle.duration), (RATE, 60))
