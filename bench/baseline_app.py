"""The ceiling for bench/load.py: a bare Flask JSON endpoint under the same server."""

from flask import Flask, jsonify, request

app = Flask(__name__)


@app.post("/chat")
def chat():
    return jsonify(reply="ok", query=request.get_json(force=True).get("query"))


@app.get("/health")
def health():
    return jsonify(status="ok")
