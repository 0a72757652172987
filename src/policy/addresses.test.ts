import { describe, expect, it } from "vitest";
import { addressRefusal, urlRefusal } from "./addresses.mjs";

describe("addressRefusal", () => {
  it.each([
    ["169.254.169.254", "link_local_address"],
    ["169.254.0.1", "link_local_address"],
    ["fe80::1", "link_local_address"],
    ["febf:ffff::1", "link_local_address"],
    ["::ffff:169.254.169.254", "link_local_address"],
    ["::ffff:a9fe:a9fe", "link_local_address"],
    ["64:ff9b::169.254.169.254", "link_local_address"],
    ["[fe80::1]", "link_local_address"],
    ["fd00:ec2::254", "metadata_address"],
    ["100.100.100.200", "metadata_address"],
    ["127.0.0.1", null],
    ["::1", null],
    ["10.0.0.1", null],
    ["192.168.1.1", null],
    ["::ffff:127.0.0.1", null],
    ["fec0::1", null],
    ["93.184.216.34", null],
    ["not-an-address", null],
  ])("%s -> %s", (address, refusal) => {
    expect(addressRefusal(address)).toBe(refusal);
  });
});

describe("urlRefusal", () => {
  it.each([
    ["http://2852039166/", "link_local_address"],
    ["http://0xa9fea9fe/", "link_local_address"],
    ["http://[::ffff:169.254.169.254]/", "link_local_address"],
    ["http://user:pw@127.0.0.1/", "credentials"],
    ["http://user@127.0.0.1/", "credentials"],
    ["file:///etc/passwd", "scheme"],
    ["javascript:alert(1)", "scheme"],
    ["not a url", "invalid_url"],
    ["http://0x7f.1/", null],
    ["https://example.com/hook", null],
  ])("%s -> %s", (url, refusal) => {
    expect(urlRefusal(url)).toBe(refusal);
  });
});
