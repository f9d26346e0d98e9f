/**
 * An immutable string-keyed map whose `set` shares structure with the previous version (a hash array
 * mapped trie): O(log32 n) per insert instead of copying the whole map.
 *
 * Why: an account stream records every job it ever settled, and `evolve` must stay pure (return a new
 * state, never change the old one). Copying a Map of n settled jobs on each event would make folding
 * an account's stream quadratic. Only insertion is needed: a settlement is final.
 */
type Leaf<V> = { kind: 'leaf'; hash: number; entries: ReadonlyArray<readonly [string, V]> };
type Branch<V> = { kind: 'branch'; bitmap: number; children: ReadonlyArray<Node<V>> };
type Node<V> = Leaf<V> | Branch<V>;

const BITS = 5;
const MASK = (1 << BITS) - 1;

function hashOf(key: string): number {
  // FNV-1a, 32 bits.
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function fragment(hash: number, shift: number): number {
  return (hash >>> shift) & MASK;
}

function lookup<V>(node: Node<V> | null, hash: number, key: string): readonly [string, V] | undefined {
  let shift = 0;
  while (node) {
    if (node.kind === 'leaf') return node.hash === hash ? node.entries.find((e) => e[0] === key) : undefined;
    const bit = 1 << fragment(hash, shift);
    if ((node.bitmap & bit) === 0) return undefined;
    node = node.children[popcount(node.bitmap & (bit - 1))];
    shift += BITS;
  }
  return undefined;
}

/** Returns the new node and whether the key was new. */
function insert<V>(node: Node<V> | null, shift: number, hash: number, key: string, value: V): [Node<V>, boolean] {
  if (node === null) return [{ kind: 'leaf', hash, entries: [[key, value]] }, true];
  if (node.kind === 'leaf') {
    if (node.hash === hash) {
      const i = node.entries.findIndex((e) => e[0] === key);
      const entries = node.entries.slice();
      if (i >= 0) entries[i] = [key, value];
      else entries.push([key, value]);
      return [{ kind: 'leaf', hash, entries }, i < 0];
    }
    // Two different hashes: split into a branch at this level, then insert again.
    const bit = 1 << fragment(node.hash, shift);
    return insert({ kind: 'branch', bitmap: bit, children: [node] }, shift, hash, key, value);
  }
  const bit = 1 << fragment(hash, shift);
  const pos = popcount(node.bitmap & (bit - 1));
  const children = node.children.slice();
  if (node.bitmap & bit) {
    const [child, added] = insert(children[pos], shift + BITS, hash, key, value);
    children[pos] = child;
    return [{ kind: 'branch', bitmap: node.bitmap, children }, added];
  }
  children.splice(pos, 0, { kind: 'leaf', hash, entries: [[key, value]] });
  return [{ kind: 'branch', bitmap: node.bitmap | bit, children }, true];
}

function* walk<V>(node: Node<V> | null): Generator<[string, V]> {
  if (!node) return;
  if (node.kind === 'leaf') {
    for (const [k, v] of node.entries) yield [k, v];
    return;
  }
  for (const child of node.children) yield* walk(child);
}

export class PersistentMap<V> implements ReadonlyMap<string, V> {
  private static readonly EMPTY = new PersistentMap<never>(null, 0);

  private constructor(
    private readonly root: Node<V> | null,
    readonly size: number,
  ) {}

  static empty<V>(): PersistentMap<V> {
    return PersistentMap.EMPTY as PersistentMap<V>;
  }

  static of<V>(entries: Iterable<readonly [string, V]>): PersistentMap<V> {
    let map = PersistentMap.empty<V>();
    for (const [k, v] of entries) map = map.set(k, v);
    return map;
  }

  /** A new map with `key` set; this one is unchanged. */
  set(key: string, value: V): PersistentMap<V> {
    const [root, added] = insert(this.root, 0, hashOf(key), key, value);
    return new PersistentMap(root, added ? this.size + 1 : this.size);
  }

  get(key: string): V | undefined {
    return lookup(this.root, hashOf(key), key)?.[1];
  }

  has(key: string): boolean {
    return lookup(this.root, hashOf(key), key) !== undefined;
  }

  entries(): MapIterator<[string, V]> {
    return walk(this.root) as MapIterator<[string, V]>;
  }

  keys(): MapIterator<string> {
    const it = this.entries();
    return (function* () {
      for (const [k] of it) yield k;
    })() as MapIterator<string>;
  }

  values(): MapIterator<V> {
    const it = this.entries();
    return (function* () {
      for (const [, v] of it) yield v;
    })() as MapIterator<V>;
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) callback.call(thisArg, v, k, this);
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  /** Plain object for logs and JSON snapshots. */
  toJSON(): Record<string, V> {
    return Object.fromEntries(this.entries());
  }
}
