import { seededRandom } from '../testing/seeded-random';
import { PersistentMap } from './persistent-map';

describe('PersistentMap (structure-sharing map for pure evolve)', () => {
  it('set returns a new map and leaves the old one unchanged', () => {
    const a = PersistentMap.empty<number>().set('job_1', 1);
    const b = a.set('job_2', 2).set('job_1', 10);
    expect([a.size, a.get('job_1'), a.has('job_2')]).toEqual([1, 1, false]);
    expect([b.size, b.get('job_1'), b.get('job_2')]).toEqual([2, 10, 2]);
  });

  it('keys whose hashes collide are both kept', () => {
    // FNV-1a(job_1162789) = FNV-1a(job_1379192) = 1111879051.
    const m = PersistentMap.of([
      ['job_1162789', 'a'],
      ['job_1379192', 'b'],
    ]);
    expect([m.size, m.get('job_1162789'), m.get('job_1379192'), m.has('job_1')]).toEqual([2, 'a', 'b', false]);
  });

  it('agrees with a Map over 20,000 random inserts and overwrites, with every old version intact', () => {
    const random = seededRandom(7);
    let map = PersistentMap.empty<number>();
    const model = new Map<string, number>();
    const snapshots: Array<[PersistentMap<number>, Map<string, number>]> = [];
    for (let i = 0; i < 20_000; i++) {
      const key = `job_${Math.floor(random() * 8_000)}`;
      map = map.set(key, i);
      model.set(key, i);
      if (i % 4_000 === 0) snapshots.push([map, new Map(model)]);
    }
    expect(map.size).toBe(model.size);
    expect(new Map(map)).toEqual(model);
    for (const [old, oldModel] of snapshots) expect(new Map(old)).toEqual(oldModel);
    expect(map.get('job_missing')).toBeUndefined();
  });

  it('iterates keys, values, forEach and serialises to a plain object', () => {
    const m = PersistentMap.of([
      ['x', 1],
      ['y', 2],
    ]);
    const seen: string[] = [];
    m.forEach((v, k) => seen.push(`${k}=${v}`));
    expect([[...m.keys()].sort(), [...m.values()].sort(), seen.sort(), m.toJSON()]).toEqual([
      ['x', 'y'],
      [1, 2],
      ['x=1', 'y=2'],
      { x: 1, y: 2 },
    ]);
  });
});
