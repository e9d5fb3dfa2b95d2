"""Settings from the environment, the token secret's sources, and dependency wiring."""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest

from chalicelib import wiring
from chalicelib.adapters import secrets as secret_source
from chalicelib.adapters.dynamo import DynamoStore
from chalicelib.adapters.fakes import FakeClock, FakeNotifier, FakeTimers
from chalicelib.adapters.notifier import ApiGatewayNotifier
from chalicelib.adapters.scheduler import SchedulerTimers
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.auth import TokenKeys, issue_token, verify_token
from chalicelib.ports import UserRecord
from chalicelib.settings import ConfigError, Settings, get_settings, reset_settings

KEY = "s" * 40


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    reset_settings()
    secret_source.reset_secret_cache()
    wiring.reset_deps()
    yield
    reset_settings()
    secret_source.reset_secret_cache()
    wiring.reset_deps()


def test_defaults_match_the_documented_caps() -> None:
    s = Settings.from_env({})
    assert (s.max_players_per_room, s.max_rooms_per_user) == (100, 5)
    assert (s.chat_max_length, s.chat_rate, s.chat_window_seconds) == (500, 5, 10)
    assert (s.passcode_max_attempts, s.passcode_window_seconds) == (5, 900)
    assert (s.scheduler_group, s.ticket_ttl_seconds, s.region) == ("default", 60, "us-east-1")


def test_values_are_read_from_the_environment() -> None:
    s = Settings.from_env(
        {
            "TABLE_NAME": "t1",
            "AWS_DEFAULT_REGION": "eu-west-1",
            "MAX_ROOMS_PER_USER": "2",
            "WEBSOCKET_API_ID": "abc",
            "CHAT_RATE": " 7 ",
        }
    )
    assert (s.table_name, s.region, s.max_rooms_per_user, s.websocket_api_id) == (
        "t1",
        "eu-west-1",
        2,
        "abc",
    )
    assert s.chat_rate == 7
    assert Settings.from_env({"AWS_REGION": "ap-south-1", "AWS_DEFAULT_REGION": "x"}).region == (
        "ap-south-1"
    )


@pytest.mark.parametrize("raw", ["many", "0", "-3", "1.5"])
def test_bad_numbers_are_config_errors_naming_the_variable(raw: str) -> None:
    with pytest.raises(ConfigError, match="MAX_PLAYERS_PER_ROOM"):
        Settings.from_env({"MAX_PLAYERS_PER_ROOM": raw})


def test_get_settings_is_cached_until_reset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLE_NAME", "first")
    assert get_settings().table_name == "first"
    monkeypatch.setenv("TABLE_NAME", "second")
    assert get_settings().table_name == "first"
    reset_settings()
    assert get_settings().table_name == "second"


def test_secret_from_secrets_manager(moto_aws: None) -> None:
    arn = boto3.client("secretsmanager").create_secret(
        Name="liars/token", SecretString=json.dumps({"current": "k2", "keys": {"k2": KEY}})
    )["ARN"]
    settings = Settings(token_secret_arn=arn, token_secret="ignored-when-arn-is-set")
    assert TokenKeys.parse(secret_source.fetch_token_secret(settings)).current == "k2"


def test_secret_from_ssm_with_decryption(moto_aws: None) -> None:
    boto3.client("ssm").put_parameter(Name="/liars/token", Value=KEY, Type="SecureString")
    settings = Settings(token_secret_param="/liars/token")
    assert secret_source.fetch_token_secret(settings) == KEY


def test_secret_is_cached_per_process(moto_aws: None) -> None:
    sm = boto3.client("secretsmanager")
    arn = sm.create_secret(Name="liars/token", SecretString=KEY)["ARN"]
    settings = Settings(token_secret_arn=arn)
    assert secret_source.fetch_token_secret(settings) == KEY
    sm.put_secret_value(SecretId=arn, SecretString="t" * 40)
    assert secret_source.fetch_token_secret(settings) == KEY
    secret_source.reset_secret_cache()
    assert secret_source.fetch_token_secret(settings) == "t" * 40


def test_tokens_sign_with_a_secrets_manager_secret(
    moto_aws: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    arn = boto3.client("secretsmanager").create_secret(Name="tok", SecretString=KEY)["ARN"]
    monkeypatch.setenv("TOKEN_SECRET_ARN", arn)
    monkeypatch.delenv("TOKEN_SECRET", raising=False)
    token = issue_token(UserRecord(id="u1", name="Ann", guest=False))
    assert verify_token(token).user_id == "u1"


def test_missing_secret_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        secret_source.fetch_token_secret(Settings())


def test_injected_deps_are_returned_until_reset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WEBSOCKET_API_ID", raising=False)
    deps = wiring.Deps(SqliteStore(), FakeNotifier(), FakeTimers(), FakeClock(5), roller=None)
    wiring.set_deps(deps)
    assert wiring.get_deps() is deps
    wiring.reset_deps()
    with pytest.raises(ConfigError):
        wiring.get_deps()  # no AWS configuration in the test environment


def test_aws_deps_are_built_from_settings_without_calling_aws() -> None:
    settings = Settings(
        table_name="tbl",
        region="eu-west-1",
        websocket_api_id="abc",
        timer_function_arn="arn:fn",
        scheduler_role_arn="arn:role",
        scheduler_group="grp",
    )
    deps = wiring.build_aws_deps(settings)
    assert isinstance(deps.store, DynamoStore) and deps.store.table_name == "tbl"
    assert isinstance(deps.notifier, ApiGatewayNotifier) and deps.notifier.api_id == "abc"
    assert isinstance(deps.timers, SchedulerTimers) and deps.timers.group == "grp"
    # clients are made on first use
    assert not (
        deps.store._client.created or deps.notifier._client.created or deps.timers._client.created
    )
    assert isinstance(deps.clock, wiring.SystemClock) and deps.clock.now_ms() > 1_700_000_000_000
    assert hasattr(deps.roller, "die")


def test_fake_clock_is_settable() -> None:
    clock = FakeClock(1_000)
    assert clock.advance(500) == 1_500 and clock.now_ms() == 1_500
