"""The NotificationStore contract on both stores: seats, push subscriptions, devices."""

from __future__ import annotations

from chalicelib.ports import DeviceRecord, PushSubscriptionRecord, Store

EP = "https://fcm.googleapis.com/fcm/send/abc"


def _room(store: Store, rid: str) -> None:
    store.create_room(rid, {"id": rid}, {"status": "waiting"})


def test_seats_list_a_users_rooms_and_nobody_elses(store: Store) -> None:
    store.seat("u1", "r2")
    store.seat("u1", "r1")
    store.seat("u1", "r1")  # idempotent
    store.seat("u2", "r3")
    assert store.seated_rooms("u1") == ["r1", "r2"]
    assert store.seated_rooms("u2") == ["r3"]
    store.unseat("u1", "r2")
    store.unseat("u1", "r9")  # missing is fine
    assert store.seated_rooms("u1") == ["r1"]
    assert store.seated_rooms("u3") == []


def test_get_rooms_reads_many_rooms_at_once(store: Store) -> None:
    for rid in ("ra", "rb", "rc"):
        _room(store, rid)
    found = store.get_rooms(["rc", "ra", "nope", "ra"])
    assert sorted(found) == ["ra", "rc"]
    assert found["ra"].state == {"id": "ra"} and found["ra"].version == 1
    assert store.get_rooms([]) == {}


def test_a_subscription_is_created_once_and_refreshed_after(store: Store) -> None:
    assert store.put_push_subscription("u1", PushSubscriptionRecord(EP, "k1", "a1", 5))
    assert not store.put_push_subscription("u1", PushSubscriptionRecord(EP, "k2", "a2", 6))
    assert store.push_subscriptions("u1") == [PushSubscriptionRecord(EP, "k2", "a2", 6)]
    assert store.push_subscriptions("u2") == []


def test_an_endpoint_has_one_owner(store: Store) -> None:
    store.put_push_subscription("u1", PushSubscriptionRecord(EP, "k1", "a1", 5))
    assert store.put_push_subscription("u2", PushSubscriptionRecord(EP, "k2", "a2", 6))
    assert store.push_subscriptions("u1") == []
    assert [s.p256dh for s in store.push_subscriptions("u2")] == ["k2"]


def test_only_the_owner_deletes_a_subscription(store: Store) -> None:
    store.put_push_subscription("u1", PushSubscriptionRecord(EP, "k1", "a1", 5))
    assert not store.delete_push_subscription("u2", EP)
    assert len(store.push_subscriptions("u1")) == 1
    assert store.delete_push_subscription("u1", EP)
    assert store.push_subscriptions("u1") == []
    assert not store.delete_push_subscription("u1", EP)
    # and the endpoint can be registered again, as new
    assert store.put_push_subscription("u1", PushSubscriptionRecord(EP, "k1", "a1", 7))


def test_devices_are_kept_per_user_with_one_owner_per_token(store: Store) -> None:
    d1 = DeviceRecord("apns", "tok-1", "arn:aws:sns:x:1:endpoint/APNS/app/1", 3)
    assert store.put_device("u1", d1)
    assert not store.put_device("u1", d1)
    assert store.put_device("u1", DeviceRecord("fcm", "tok-2", None, 4))
    assert [d.token for d in store.devices("u1")] == ["tok-1", "tok-2"]
    assert store.put_device("u2", DeviceRecord("fcm", "tok-2", None, 5))
    assert [d.token for d in store.devices("u1")] == ["tok-1"]
    assert store.delete_device("u2", "tok-1") is None
    assert store.delete_device("u1", "tok-1") == d1
    assert store.devices("u1") == []
