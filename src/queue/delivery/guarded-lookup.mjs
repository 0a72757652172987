// The send-time half of the address rule (design.md section 11): every connection Holdfast opens resolves
// its hostname through this lookup, which refuses an answer that is a link-local or metadata address. The
// check sits in the connection itself, so a name that resolves differently between a check and the connect
// (DNS rebinding) cannot slip through. Plain JavaScript: the delivery thread uses it too.
import dns from "node:dns";
import { addressRefusal, refusalWords, urlRefusal } from "../../policy/addresses.mjs";

/** The `code` of the error a refused connection fails with. */
export const ADDRESS_REFUSED = "HOLDFAST_ADDRESS_REFUSED";

function refused(message) {
  const error = new Error(message);
  error.code = ADDRESS_REFUSED;
  return error;
}

/**
 * A `lookup` for net.connect / tls.connect (and undici's `connect` option) that applies the address rule to
 * what `resolve` (dns.lookup's signature) answers.
 */
export function guardLookup(resolve) {
  return (hostname, options, callback) => {
    resolve(hostname, options, (error, address, family) => {
      if (error) return callback(error);
      const answers = Array.isArray(address) ? address : [{ address, family }];
      for (const answer of answers) {
        const refusal = addressRefusal(answer.address);
        if (refusal) return callback(refused(`${hostname} resolves to ${answer.address}: ${refusalWords(refusal)}`));
      }
      callback(null, address, family);
    });
  };
}

/** The system resolver, guarded: what every outbound connection uses. */
export const guardedLookup = guardLookup(dns.lookup);

const checked = new Map();

/**
 * Why a URL may not be sent to, checked again at send time (a row stored before the rule, or an address
 * literal, which connects without a lookup), or null. Destinations are few, so each is checked once.
 */
export function sendTimeRefusal(url) {
  let refusal = checked.get(url);
  if (refusal === undefined) {
    const code = urlRefusal(url);
    refusal = code ? `refused ${url}: ${refusalWords(code)}` : null;
    if (checked.size > 10_000) checked.clear();
    checked.set(url, refusal);
  }
  return refusal;
}
