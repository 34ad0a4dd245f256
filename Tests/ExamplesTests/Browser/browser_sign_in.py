"""A real browser signs in on an example server: Debian's chromium, headless, driven by Selenium
through Debian's chromedriver. Run with the test-tools venv's python (selenium is there):

    .build/test-tools/venv/bin/python Tests/ExamplesTests/Browser/browser_sign_in.py \
        --base http://127.0.0.1:PORT --mode local --username ann --screenshots DIR
    ... --mode hosted --username alice --password Passw0rd!

local:  signs up on the server's own pages, reads the code from the development outbox, confirms,
        signs in, loads /me, reloads it (the session survives), checks that document.cookie shows
        no token cookie (they are HttpOnly), signs out with the home page's link and is refused /me.
hosted: the same from "Sign in" through the hosted UI stand-in's page (its fields `username`,
        `password`, button `signInSubmitButton`), and the sign-out through its /logout.

Each page is saved as a PNG in --screenshots. Prints one JSON line {"ok": true, "seconds": N,
"steps": [...]} and exits 0, or prints what failed and exits 1. Only 127.0.0.1 is visited.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait


class Failed(Exception):
    pass


def browser(profile):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=900,800",
                 "--no-first-run", "--disable-extensions", "--disable-background-networking", "--disable-sync",
                 "--user-data-dir=" + profile):
        options.add_argument(flag)
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(30)
    return driver


class Run:
    def __init__(self, driver, base, screenshots):
        self.driver = driver
        self.base = base.rstrip("/")
        self.screenshots = screenshots
        self.steps = []

    def shot(self, name):
        if self.screenshots:
            self.driver.save_screenshot(os.path.join(self.screenshots, "%02d-%s.png" % (len(self.steps) + 1, name)))
        self.steps.append(name)

    def open(self, path):
        self.driver.get(self.base + path)

    def fill(self, fields, button="submit"):
        for name, value in fields.items():
            element = WebDriverWait(self.driver, 10).until(expected_conditions.presence_of_element_located((By.NAME, name)))
            element.clear()
            element.send_keys(value)
        self.driver.find_element(By.ID, button).click()

    def wait_path(self, path):
        try:
            WebDriverWait(self.driver, 15).until(lambda d: d.current_url.split("?")[0] == self.base + path)
        except Exception:
            raise Failed("expected %s, the browser is at %s: %s" % (path, self.driver.current_url, self.text()[:300]))

    def text(self):
        return self.driver.find_element(By.TAG_NAME, "body").text

    def expect_me(self, username):
        body = self.text()
        try:
            me = json.loads(body)
        except ValueError:
            raise Failed("/me is not JSON: %s" % body[:300])
        if me.get("username") != username or me.get("authUser") != username:
            raise Failed("/me names %r, not %s" % (me, username))

    def check_http_only(self):
        visible = self.driver.execute_script("return document.cookie")
        if "CognitoIdentityServiceProvider" in visible or "com.amplify.server_auth" in visible:
            raise Failed("page scripts can read the session cookies: %s" % visible[:200])
        names = [cookie["name"] for cookie in self.driver.get_cookies()]
        tokens = [name for name in names if name.startswith("CognitoIdentityServiceProvider")]
        if len(tokens) < 4:
            raise Failed("the browser keeps too few token cookies: %s" % names)
        for cookie in self.driver.get_cookies():
            if cookie["name"].startswith("CognitoIdentityServiceProvider") and not cookie.get("httpOnly"):
                raise Failed("%s is not HttpOnly" % cookie["name"])

    def sign_out_and_check(self, hosted):
        self.open("/")
        self.shot("home")
        self.driver.find_element(By.ID, "sign-out").click()
        self.wait_path("/")
        self.shot("signed-out")
        if any(cookie["name"].startswith("CognitoIdentityServiceProvider") for cookie in self.driver.get_cookies()):
            raise Failed("token cookies are left after signing out")
        self.open("/me")
        if "Sign in first" not in self.text():
            raise Failed("/me after signing out: %s" % self.text()[:300])
        self.shot("me-refused")


def local(run, username, password):
    run.open("/auth/sign-up")
    run.shot("sign-up")
    run.fill({"username": username, "email": username + "@example.com", "password": password})
    run.wait_path("/auth/confirm")
    run.shot("confirm")
    code = run.driver.find_element(By.ID, "outbox").text.strip().splitlines()[-1]
    run.fill({"code": code})
    run.wait_path("/auth/sign-in")
    run.shot("sign-in")
    run.fill({"username": username, "password": password})
    run.wait_path("/")
    run.open("/me")
    run.expect_me(username)
    run.shot("me")
    run.driver.refresh()
    run.expect_me(username)
    run.check_http_only()
    run.sign_out_and_check(hosted=False)


def hosted(run, username, password):
    run.open("/")
    run.driver.find_element(By.ID, "sign-in").click()
    WebDriverWait(run.driver, 15).until(lambda d: "/oauth2/authorize" in d.current_url)
    run.shot("hosted-ui")
    run.fill({"username": username, "password": password}, button="signInSubmitButton")
    run.wait_path("/")
    run.open("/me")
    run.expect_me(username)
    run.shot("me")
    run.driver.refresh()
    run.expect_me(username)
    run.check_http_only()
    run.sign_out_and_check(hosted=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--mode", choices=["local", "hosted"], required=True)
    parser.add_argument("--username", required=True)
    parser.add_argument("--password", default="Passw0rd!")
    parser.add_argument("--screenshots")
    arguments = parser.parse_args()
    if not arguments.base.startswith("http://127.0.0.1:"):
        print("only http://127.0.0.1 is visited", file=sys.stderr)
        return 2
    if arguments.screenshots:
        os.makedirs(arguments.screenshots, exist_ok=True)
    start = time.monotonic()
    profile = tempfile.mkdtemp(prefix="browser-sign-in-")
    driver = browser(profile)
    run = Run(driver, arguments.base, arguments.screenshots)
    try:
        (local if arguments.mode == "local" else hosted)(run, arguments.username, arguments.password)
    except Exception as error:  # a failed step, or Selenium's own error: say which step
        if arguments.screenshots:
            try:
                driver.save_screenshot(os.path.join(arguments.screenshots, "failed.png"))
            except Exception:
                pass
        print(json.dumps({"ok": False, "steps": run.steps, "error": "%s: %s" % (type(error).__name__, error)}))
        return 1
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps({"ok": True, "seconds": round(time.monotonic() - start, 2), "steps": run.steps}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
