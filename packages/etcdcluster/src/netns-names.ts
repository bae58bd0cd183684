/**
 * Names of everything a NetnsNetwork creates on the host. Each network owns one /24 subnet
 * `10.251.<octet>.0/24`, claimed machine-wide by a file (see netns-network.ts), and every name
 * carries that octet, so a leftover of a killed run can be traced to its claim and removed.
 * Interface names stay within Linux's 15 characters.
 */
export const NETNS_PREFIX = 'oetcd-';
export const BRIDGE_PREFIX = 'oeb';
export const VETH_PREFIX = 'oev';
/** Claim files (`<octet>` holding the owner's pid) live here: tmpfs, gone after a reboot like the namespaces. */
export const CLAIM_DIR = '/run/orrery-etcdcluster';
export const SUBNET_BASE = '10.251';

/** Octets a network may claim (1..254). */
export const OCTETS: readonly number[] = Array.from({ length: 254 }, (_, i) => i + 1);

export interface NetworkNames {
  octet: number;
  bridge: string;
  /** The host's address on the bridge (the test process reaches every namespace through it). */
  hostAddress: string;
  prefixLength: 24;
}

export function networkNames(octet: number): NetworkNames {
  if (!Number.isInteger(octet) || octet < 1 || octet > 254) throw new Error(`subnet octet ${octet} is outside 1..254`);
  return { octet, bridge: `${BRIDGE_PREFIX}${octet}`, hostAddress: `${SUBNET_BASE}.${octet}.1`, prefixLength: 24 };
}

/** Participant names become part of a namespace name: keep them to what `ip netns` accepts everywhere. */
const PARTICIPANT = /^[a-z0-9][a-z0-9-]{0,30}$/;

export interface HostNames {
  netns: string;
  hostVeth: string;
  address: string;
}

/** The `slot`-th participant (0-based, at most 200 per network) gets `.10 + slot`. */
export function hostNames(octet: number, slot: number, participant: string): HostNames {
  if (!PARTICIPANT.test(participant)) throw new Error(`participant name ${JSON.stringify(participant)} must match ${PARTICIPANT}`);
  if (!Number.isInteger(slot) || slot < 0 || slot >= 200) throw new Error(`participant slot ${slot} is outside 0..199`);
  return {
    netns: `${NETNS_PREFIX}${octet}-${participant}`,
    hostVeth: `${VETH_PREFIX}${octet}-${slot}`,
    address: `${SUBNET_BASE}.${octet}.${10 + slot}`,
  };
}

/** The subnet octet a name of ours belongs to, or undefined for anyone else's name. */
export function octetOf(name: string): number | undefined {
  const m = new RegExp(`^(?:${NETNS_PREFIX}(\\d+)-.+|${BRIDGE_PREFIX}(\\d+)|${VETH_PREFIX}(\\d+)-\\d+)$`).exec(name);
  if (!m) return undefined;
  const octet = Number(m[1] ?? m[2] ?? m[3]);
  return octet >= 1 && octet <= 254 ? octet : undefined;
}
