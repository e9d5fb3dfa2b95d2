"""Notifications on AWS: the VAPID secret the stack generates, the functions' environment, and
mobile push through SNS with least privilege (synthesized with platform applications)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.infra.conftest import REPO_ROOT, synthesize
from tests.infra.test_infra_stack import env_of, functions_by_handler, resources, statements

APNS = "arn:aws:sns:eu-west-1:123456789012:app/APNS/liars-ios"
FCM = "arn:aws:sns:eu-west-1:123456789012:app/GCM/liars-android"


def vapid_secret(template: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    found = [
        (rid, r)
        for rid, r in resources(template, "AWS::SecretsManager::Secret").items()
        if rid.startswith("VapidSecret")
    ]
    assert len(found) == 1
    return found[0]


def test_the_vapid_secret_is_generated_at_deploy_and_read_by_every_function(
    dev: dict[str, Any],
) -> None:
    rid, secret = vapid_secret(dev)
    assert "GenerateSecretString" in secret["Properties"]
    assert "SecretString" not in secret["Properties"]
    for handler, (_, function) in functions_by_handler(dev).items():
        env = env_of(function)
        assert env["VAPID_SECRET_ARN"] == {"Ref": rid}, handler
        assert "VAPID_SECRET" not in env
        # no mobile push without platform applications
        assert "SNS_APNS_APPLICATION_ARN" not in env
    readers = [s for _, s in statements(dev) if s.get("Sid") == "ReadVapidSecret"]
    assert readers and all(s["Resource"] == {"Ref": rid} for s in readers)
    assert not [s for _, s in statements(dev) if str(s["Action"]).startswith("sns:")]


def test_mobile_push_gets_sns_on_those_applications_only(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    context = {
        "stage": "dev",
        "sns_apns_application_arn": APNS,
        "sns_fcm_application_arn": FCM,
        "push_endpoint_allow": "https://fcm.googleapis.com",
    }
    path = synthesize("dev", tmp_path_factory.mktemp("synth-sns"), context=context)
    template = json.loads(Path(path).read_text())
    by_sid = {s.get("Sid"): s for _, s in statements(template)}
    create = by_sid["MobilePushEndpoints"]
    assert create["Action"] == "sns:CreatePlatformEndpoint"
    assert sorted(create["Resource"]) == sorted([APNS, FCM])
    send = by_sid["MobilePushSend"]
    assert sorted(send["Action"]) == ["sns:DeleteEndpoint", "sns:Publish"]
    assert sorted(send["Resource"]) == sorted(
        [
            "arn:aws:sns:eu-west-1:123456789012:endpoint/APNS/liars-ios/*",
            "arn:aws:sns:eu-west-1:123456789012:endpoint/GCM/liars-android/*",
        ]
    )
    for _, s in statements(template):
        actions = s["Action"] if isinstance(s["Action"], list) else [s["Action"]]
        if any(a.startswith("sns:") for a in actions):
            assert "*" not in json.dumps(s["Resource"]).replace("/*", "")
    for _, (_, function) in functions_by_handler(template).items():
        env = env_of(function)
        assert env["SNS_APNS_APPLICATION_ARN"] == APNS
        assert env["SNS_FCM_APPLICATION_ARN"] == FCM
        assert env["PUSH_ENDPOINT_ALLOW"] == "https://fcm.googleapis.com"
    assert REPO_ROOT
