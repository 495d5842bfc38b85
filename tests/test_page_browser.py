"""The chat page in a real browser (Debian's chromium, headless, driven by Playwright):
the seed's conversation with cards, table, verdicts and agents; reload; phone width; booking
with the code field; HTML injection; friendly errors; the same page for the showroom and
the shop. Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright
from werkzeug.serving import make_server

from app import create_app

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
SEED = [
    ("I want a platinum conventional credit card for business", "retriever → formatter"),
    ("Which is best for me? Compare them", "comparator → formatter"),
    ("Am I eligible for the Mastercard one?", "eligibility → formatter"),
    ("Compare them and check eligibility", "comparator → eligibility → formatter"),
    ("Actually show me Islamic options instead", "retriever → formatter"),
    ("What are the fees?", "formatter"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("page")
    app = create_app({"session_db": folder / "s.sqlite3", "notify_outbox": folder / "outbox.jsonl", "reminder_poll_s": 0})
    http = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{http.server_port}", folder / "outbox.jsonl"
    http.shutdown()


@pytest.fixture(scope="module")
def browser():
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: install Debian's chromium (bash .ci/run does)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser, server):
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(server[0] + "/")
    yield page
    context.close()


def say(page: Page, text: str) -> None:
    answers = page.locator(".msg.bot:not(.streaming)").count()
    page.fill("#input", text)
    page.press("#input", "Enter")
    expect(page.locator(".msg.bot:not(.streaming)")).to_have_count(answers + 1, timeout=15_000)
    expect(page.locator("#input")).to_be_enabled()


def last_answer(page: Page):
    return page.locator(".msg.bot:not(.streaming)").last


def test_the_seed_conversation_looks_right_and_survives_a_reload(page):
    page.select_option("#profile", "business_owner")
    for turn, (text, agents) in enumerate(SEED, 1):
        say(page, text)
        page.screenshot(path=str(ARTIFACTS / f"desktop-seed-{turn}.png"))
        expect(last_answer(page).locator(".agents")).to_have_text(agents)
        if text.startswith("I want"):
            expect(last_answer(page).locator(".pcard")).to_have_count(3)
            expect(last_answer(page).locator(".pcard .badge").first).to_have_text("Conventional")
        if text.startswith("Which is best"):
            expect(last_answer(page).locator("table[aria-label='Product comparison'] td.best").first).to_be_visible()
        if text.startswith("Am I eligible"):
            expect(last_answer(page).locator(".elig-item")).to_have_count(1)
            expect(last_answer(page).locator(".chip")).to_have_text("Need more info")
        if text.startswith("Actually"):
            expect(last_answer(page).locator(".pcard .badge").first).to_have_text("Islamic")
        if text.startswith("What are the fees"):
            expect(last_answer(page)).to_contain_text("Annual fee: ৳")

    page.reload()
    expect(page.locator(".msg.user")).to_have_count(len(SEED))
    expect(page.locator(".msg.bot .pcard").first).to_be_visible()
    page.click("#new-chat")
    expect(page.locator(".msg.user")).to_have_count(0)


def test_phone_width_has_no_sideways_scrolling(browser, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(server[0] + "/")
    page.click("#new-chat")
    say(page, "I want a platinum conventional credit card for business")
    say(page, "Compare them")
    overflow = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.screenshot(path=str(ARTIFACTS / "phone-comparison.png"), full_page=True)
    context.close()


def test_booking_with_the_code_field(page, server):
    page.click("#new-chat")
    say(page, "book me a call next Sunday at 5 pm about the Visa Platinum Business Credit Card")
    expect(last_answer(page).locator(".booking h3")).to_have_text("Appointment in progress")
    say(page, "my name is Rahim Uddin")
    say(page, "01712345678")
    code_box = last_answer(page).locator(".code-form input")
    expect(code_box).to_be_visible()
    sent = [json.loads(line) for line in server[1].read_text().splitlines()]
    code = re.search(r"\b(\d{6})\b", [m for m in sent if m["kind"] == "otp"][-1]["text"]).group(1)
    answers = page.locator(".msg.bot:not(.streaming)").count()
    code_box.fill(code)
    code_box.press("Enter")
    expect(page.locator(".msg.bot:not(.streaming)")).to_have_count(answers + 1, timeout=15_000)
    expect(last_answer(page).locator(".booking.confirmed h3")).to_contain_text("Appointment confirmed · BK-")
    assert code not in page.locator("#log").inner_text(), "the code is never shown on the page"
    assert all(box.input_value() == "" for box in page.locator(".code-form input").all())
    page.screenshot(path=str(ARTIFACTS / "desktop-booking.png"), full_page=True)


def test_text_from_users_is_never_html(page):
    page.click("#new-chat")
    say(page, "<img src=x onerror=alert(1)> **bold?**")
    assert page.locator("#log img").count() == 0
    expect(page.locator(".msg.user").last).to_have_text("<img src=x onerror=alert(1)> **bold?**")


def test_server_errors_are_a_friendly_line(page):
    page.route(
        "**/chat/stream",
        lambda route: route.fulfill(
            status=500,
            content_type="application/json",
            body=json.dumps({"error": "internal_error", "message": "Something went wrong on our side."}),
        ),
    )
    page.fill("#input", "hello")
    page.press("#input", "Enter")
    expect(page.locator(".msg.error")).to_have_text("Sorry, something went wrong: Something went wrong on our side.")
    expect(page.locator("#input")).to_be_enabled()


def test_without_the_stream_endpoint_the_page_falls_back_to_chat(page):
    page.route(
        "**/chat/stream",
        lambda route: route.fulfill(status=404, content_type="application/json", body='{"error": "not_found", "message": "x"}'),
    )
    page.click("#new-chat")
    say(page, "I want a platinum conventional credit card for business")
    expect(last_answer(page).locator(".pcard")).to_have_count(3)


@pytest.mark.parametrize(
    "domain,conversation",
    [
        ("cars", ["Show me SUVs under 15 lakhs", "compare Thar and Scorpio", "book a test drive of the Thar"]),
        ("store", ["Recommend a laptop, budget 35k", "My screen is frozen, what do I do?", "It's the Lenovo IdeaPad Gaming 3"]),
    ],
)
def test_the_same_page_serves_another_business(browser, tmp_path, domain, conversation):
    app = create_app({"domain": domain, "session_db": tmp_path / "s.sqlite3", "reminder_poll_s": 0})
    http = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    about = app.test_client().get("/about").get_json()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"http://127.0.0.1:{http.server_port}/")
        expect(page.locator("header h1")).to_have_text(about["title"])
        expect(page.locator("#profile")).to_be_hidden()  # neither business asks about employment
        expect(page.locator(".msg.bot").first).to_contain_text(re.sub(r"\*\*", "", about["welcome"])[:20])
        say(page, conversation[0])
        cards = last_answer(page).locator(".pcard")
        expect(cards.first).to_be_visible()
        expect(cards.first.locator(".fee")).to_contain_text("₹" if domain == "cars" else "฿")
        say(page, conversation[1])
        if domain == "cars":
            expect(last_answer(page).locator("table[aria-label='Product comparison'] td.best").first).to_be_visible()
            say(page, conversation[2])
            expect(last_answer(page).locator(".booking h3")).to_have_text("Test drive in progress")
        else:
            expect(last_answer(page)).to_contain_text("Which model is it?")
            say(page, conversation[2])
            expect(last_answer(page).locator("ol li").first).to_contain_text("Win+Ctrl+Shift+B")
            expect(last_answer(page)).to_contain_text("Back to your shopping")
        page.screenshot(path=str(ARTIFACTS / f"desktop-{domain}.png"), full_page=True)
    finally:
        context.close()
        http.shutdown()
