"""create_app: the settings are read once, and every component finds its files through them."""

from __future__ import annotations

import pytest
from flask import Flask

from app import create_app
from assistant.infra import config


def test_an_override_that_names_no_setting_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown settings: sesion_db"):
        create_app({"sesion_db": tmp_path / "s.sqlite3"})


def test_sessions_default_to_the_instance_folder_and_bookings_go_beside_them(tmp_path):
    app = Flask(__name__, instance_path=str(tmp_path / "instance"))
    config.init_app(app)
    assert config.sessions_file(app) == tmp_path / "instance" / "sessions.sqlite3"
    assert config.bookings_file(app) == tmp_path / "instance" / "bookings.sqlite3"
    config.init_app(app, {"SESSION_DB": tmp_path / "elsewhere" / "s.sqlite3"})
    assert config.bookings_file(app) == tmp_path / "elsewhere" / "bookings.sqlite3"
