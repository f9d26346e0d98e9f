import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createTestCa, startHttpsServer, type TestCa, type TestServer } from '@upscaler/testing';

// docs/design.md §6: the service trusts test CAs through NODE_EXTRA_CA_CERTS; createTestCa's caPath is
// what an e2e suite hands a child process.
const CLIENT = `require('https').get(process.argv[1], (r) => { console.log(r.statusCode); r.resume(); })
  .on('error', (e) => { console.log(e.code); });`;

function childGet(url: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', CLIENT, url], { env }, (err, stdout) => (err ? reject(err) : resolve(stdout.trim())));
  });
}

let ca: TestCa;
let server: TestServer;
beforeAll(async () => {
  ca = await createTestCa();
  server = await startHttpsServer((_req, res) => res.writeHead(204).end(), ca);
});
afterAll(async () => {
  await server.close();
  ca.cleanup();
});

test('the CA file holds the CA certificate', () => {
  expect(readFileSync(ca.caPath, 'utf8')).toBe(ca.caCert);
});

test('a child process trusts the test server with NODE_EXTRA_CA_CERTS=caPath, and only then', async () => {
  const env = { PATH: process.env.PATH };
  expect(await childGet(`${server.url}/`, { ...env, NODE_EXTRA_CA_CERTS: ca.caPath })).toBe('204');
  expect(await childGet(`https://localhost:${server.port}/`, { ...env, NODE_EXTRA_CA_CERTS: ca.caPath })).toBe('204');
  expect(await childGet(`${server.url}/`, env)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
});
