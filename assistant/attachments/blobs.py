"""Where attachments' bytes go, named by ATTACHMENTS_URL: a directory (the default, ATTACHMENTS_DIR,
or `file:///path`) that one machine owns, or S3-compatible storage (`s3://bucket/prefix`) that
every machine shares. Their descriptions are rows of the durable database (store.py): a blob is
only bytes under a key, written whole or not at all.

S3 is reached through boto3's standard configuration: credentials and region from the
environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_DEFAULT_REGION), ~/.aws or the
machine's role, never from the URL, which logs may show; the endpoint from AWS_ENDPOINT_URL (or
AWS_ENDPOINT_URL_S3), or from the URL's `?endpoint_url=http://host:port` for a server of one's own
(MinIO, Ceph, moto), so that one setting says where the files are."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol
from urllib.parse import parse_qs, unquote, urlsplit


class Blobs(Protocol):
    def put(self, key: str, data: bytes) -> None: ...
    def get(self, key: str) -> bytes: ...
    def delete(self, key: str) -> None:
        """Gone, or never there."""


def open_blobs(url: str) -> Blobs:
    """`file:///path` or `s3://bucket/prefix?endpoint_url=...` (the query optional)."""
    parts = urlsplit(url)
    if parts.scheme == "file" and parts.netloc in ("", "localhost") and not parts.query:
        return Directory(Path(unquote(parts.path)))
    if parts.scheme == "s3" and parts.netloc:
        query = parse_qs(parts.query, keep_blank_values=True)
        if set(query) - {"endpoint_url"}:
            raise ValueError(f"ATTACHMENTS_URL takes endpoint_url alone in its query, not {', '.join(sorted(query))}")
        endpoint = query.get("endpoint_url", [None])[-1]
        return S3(parts.netloc, unquote(parts.path).strip("/"), endpoint)
    raise ValueError("ATTACHMENTS_URL is file:///path or s3://bucket/prefix")


class Directory:
    """Each blob a file under the folder (made when the first is kept), its key its relative path."""

    def __init__(self, folder: Path):
        self.folder = folder

    def put(self, key: str, data: bytes) -> None:
        path = self.folder / key
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(path.suffix + ".part")  # a reader never sees half a file
        partial.write_bytes(data)
        os.replace(partial, path)

    def get(self, key: str) -> bytes:
        return (self.folder / key).read_bytes()

    def delete(self, key: str) -> None:
        """The file, and its folder once empty (a conversation's folder goes with its last file)."""
        path = self.folder / key
        path.unlink(missing_ok=True)
        try:
            path.parent.rmdir()
        except OSError:  # other files left, or already gone
            pass


class S3:
    """Each blob an object of the bucket under the prefix. boto3's clients are thread-safe; each
    worker process makes its own (gunicorn forks before the app is made)."""

    def __init__(self, bucket: str, prefix: str, endpoint_url: str | None = None):
        import boto3  # only where S3 is used: it costs start-up time

        self.bucket, self.prefix = bucket, f"{prefix}/" if prefix else ""
        self._client = boto3.session.Session().client("s3", endpoint_url=endpoint_url)

    def put(self, key: str, data: bytes) -> None:
        self._client.put_object(Bucket=self.bucket, Key=self.prefix + key, Body=data)

    def get(self, key: str) -> bytes:
        data: bytes = self._client.get_object(Bucket=self.bucket, Key=self.prefix + key)["Body"].read()
        return data

    def delete(self, key: str) -> None:
        self._client.delete_object(Bucket=self.bucket, Key=self.prefix + key)
