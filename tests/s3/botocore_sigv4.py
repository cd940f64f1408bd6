#!/usr/bin/python3
"""Prints botocore's SigV4 steps for one S3 request, for sigv4_test.cc.

Input (argv[1]): JSON {method, host, path (decoded), query: [[k, v]...],
headers: [[k, v]...], body, access_key, secret_key, region, amz_date}.
Output: JSON {canonical_request, string_to_sign, signature}. The time is the
given amz_date (botocore's add_auth would take the clock), so the steps are
driven one by one, as add_auth drives them.
"""
import hashlib
import json
import sys
from urllib.parse import quote

import botocore
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

r = json.loads(sys.argv[1])
url = "http://" + r["host"] + quote(r["path"], safe="/~")
req = AWSRequest(method=r["method"], url=url, data=r["body"].encode("utf-8"))
req.params = {k: v for k, v in r["query"]}
for k, v in r["headers"]:
    req.headers[k] = v
req.headers["X-Amz-Date"] = r["amz_date"]
req.headers["X-Amz-Content-SHA256"] = hashlib.sha256(r["body"].encode("utf-8")).hexdigest()
req.context["timestamp"] = r["amz_date"]
auth = S3SigV4Auth(Credentials(r["access_key"], r["secret_key"]), "s3", r["region"])
canonical = auth.canonical_request(req)
sts = auth.string_to_sign(req, canonical)
sig = auth.signature(sts, req)
print(json.dumps({"canonical_request": canonical, "string_to_sign": sts, "signature": sig,
                  "botocore": botocore.__version__}))
