"""What a customer gets for a question: the help article that answers it, a product's own figure,
or a hand-over to people with the nearest articles as quick replies; never a guess."""

from __future__ import annotations

import pytest
from conftest import Conversation, app_for

from assistant.language import load_languages
from assistant.tools.help_search import terms

# The team's own phrasings, none of them in any pack's data.
FOUND = [
    ("bank", "the cash machine kept hold of my card last night", "card-retained-atm"),
    ("bank", "can my husband have a second card linked to mine?", "supplementary-card"),
    ("bank", "I want to shut down my credit card for good", "close-card"),
    ("bank", "i put money on my prepaid card but the balance didn't change", "prepaid-reload"),
    # the catalog's own words ("debit", "card") in a question that is not a search
    ("bank", "there's a direct debit on my account I never agreed to", "dispute-transaction"),
    ("bank", "how much does it cost to load my prepaid card using a credit card?", "prepaid-reload"),
    ("bank", "what's the most I can pull out per day on the debit card", "debit-daily-limit"),
    ("bank", "my new card hasn't turned up and it's been two weeks", "card-not-received"),
    ("cars", "is a learner's licence okay for taking a test drive?", "test-drive-documents"),
    ("store", "can I send back headphones I bought last week if I dont like them", "return-exchange-policy"),
]


@pytest.fixture
def chat_in(tmp_path):
    return lambda domain: Conversation(app_for(tmp_path, domain).test_client())


@pytest.mark.parametrize("domain, question, article", FOUND)
def test_a_question_worded_its_own_way_gets_its_article(chat_in, domain, question, article):
    chat = chat_in(domain)
    data = chat.say(question)
    to_people = article in chat.client.application.extensions["pipeline"].catalog.pack.handover.articles  # a complaint
    assert data["help"] == {"article": article, "suggested": [], "handover": to_people}
    assert data["products"] == [] and data["intent"]["type"] == "faq"


@pytest.mark.parametrize(
    "domain, question",
    [
        ("bank", "how do I get a loan to buy a flat"),
        ("cars", "can you help me file my income tax return"),
        ("store", "what's the best recipe for pad thai"),
        ("restaurants", "can you book me a flight to Goa"),
        # the item's own name is no wish to buy one: not a card search
        ("bank", "what are those throwaway cards people use online for?"),
        ("restaurants", "is the restaurant industry doing well this year"),
        ("store", "can I trade in my old phone"),
    ],
)
def test_a_question_outside_the_business_is_handed_to_people_with_quick_replies(chat_in, domain, question):
    chat = chat_in(domain)
    data = chat.say(question)
    support = chat.client.application.extensions["pipeline"].catalog.business.support_contact
    assert data["help"]["handover"] is True and data["help"]["article"] is None
    assert support in data["reply"] and data["products"] == []
    assert "didn't quite get that" not in data["reply"]
    assert len(data["choices"]) == len(data["help"]["suggested"]) <= 3
    for choice in data["choices"]:  # each quick reply is an article's question, and answers when sent
        assert choice in data["reply"]


@pytest.mark.parametrize("question", ["how do I get a loan to buy a flat", "বাড়ি কেনার জন্য লোন কীভাবে পাব?"])
def test_a_quick_reply_answers_with_its_article(chat, question):
    offered = chat.say(question)
    assert offered["choices"], offered["reply"]
    answer = chat.say(offered["choices"][0])  # in Bengali, the article's translated question
    assert answer["help"]["article"] == offered["help"]["suggested"][0]
    assert answer["reply"].startswith(f"**{offered['choices'][0]}**")  # answered in the language it was asked in


def test_a_question_about_the_cards_at_hand_is_answered_from_their_own_figures(chat, catalog):
    listed = chat.say("platinum credit cards")
    late = chat.say("and what's the late fee on these?")
    assert late["intent"]["type"] == "feature_query" and late["help"]["article"] is None
    assert late["reply"].startswith("**Late payment fee**\n")  # one line asked of them all: one list under its label
    for product in listed["products"]:
        card = catalog.product(product["id"])
        assert f"- **{card.name}**: ৳{card.value('late_payment_fee'):,}\n" in late["reply"] + "\n"
    assert "Annual fee" not in late["reply"]  # only the figure asked for
    supplementary = chat.say("supplementary card fee?")
    assert supplementary["reply"].startswith("**Supplementary card**\n") and "Late payment fee" not in supplementary["reply"]


def test_cancelling_something_we_do_not_hold_is_a_help_question(chat):
    data = chat.say("I'd like to cancel my credit card")
    assert data["intent"]["type"] == "faq" and data["help"]["article"] == "close-card"
    assert chat.say("cancel")["reply"] == "There's nothing to cancel. What can I help you with?"


@pytest.mark.parametrize(
    "domain, question, article",
    [
        ("bank", "আমার কার্ড হারিয়ে গেছে", "lost-or-stolen-card"),
        ("bank", "পিন ভুলে গেছি", "forgot-pin"),
        ("store", "จอมอนิเตอร์กระพริบตลอดเวลา", "monitor-flickering"),
    ],
)
def test_a_question_in_a_script_the_model_cannot_read_is_answered_by_its_words(chat_in, domain, question, article):
    """The model reads these as unknown tokens; the word search over the pack's phrasings finds
    the article, and a fault in Thai naming a device starts no sale."""
    data = chat_in(domain).say(question)
    assert data["help"]["article"] == article and not data["products"]


def test_the_word_search_leaves_out_the_packs_languages_stop_words():
    hindi, bangla = load_languages(["hi"]).stop_words, load_languages(["bn"]).stop_words
    assert terms("mera card kaise block kare", hindi) == ["card", "block"]
    assert len(terms("mera card kaise block kare", bangla)) == 5, "Hindi words are no Bangla stop words"
    assert terms("আমার কার্ড কিভাবে ব্লক করব", bangla) == ["কার্ড", "ব্লক", "করব"]


def test_words_in_scripts_with_vowel_signs_stay_whole_for_the_word_search():
    assert terms("আমার কার্ড হারিয়ে গেছে") == ["আমার", "কার্ড", "হারিয়ে", "গেছে"]
    assert terms("फास्टैग कैसे लगवाएं") == ["फास्टैग", "कैसे", "लगवाएं"]
    assert "ร้" in terms("ร้อน")  # Thai, unspaced: pairs of letters, the tone mark kept on its letter
