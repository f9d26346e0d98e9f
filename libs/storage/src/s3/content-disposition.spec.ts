import { attachmentDisposition } from './content-disposition';
import { clientOptionsFor } from './s3-options';

describe('attachmentDisposition', () => {
  it('keeps a plain name and encodes it for filename*', () => {
    expect(attachmentDisposition('photo_4k.png')).toBe(`attachment; filename="photo_4k.png"; filename*=UTF-8''photo_4k.png`);
  });

  it('replaces quotes and non-ASCII in the fallback, keeps the exact name in filename*', () => {
    expect(attachmentDisposition('Ünïcode "x".webp')).toBe(
      `attachment; filename="_n_code _x_.webp"; filename*=UTF-8''%C3%9Cn%C3%AFcode%20%22x%22.webp`,
    );
  });
});

describe('clientOptionsFor', () => {
  const creds = { endpoint: '', accessKey: 'a', secretKey: 's', bucket: 'b' };

  it('reads host, port and TLS from the endpoint URL', () => {
    expect(clientOptionsFor('https://files.example.com', creds)).toMatchObject({
      endPoint: 'files.example.com',
      port: 443,
      useSSL: true,
      region: 'us-east-1',
      pathStyle: true,
    });
    expect(clientOptionsFor('http://minio:9000', creds)).toMatchObject({ endPoint: 'minio', port: 9000, useSSL: false });
  });

  it('refuses an endpoint with a path, which would break every signature', () => {
    expect(() => clientOptionsFor('http://proxy/storage', creds)).toThrow(
      'S3 endpoint must not have a path (http://proxy/storage); serve the storage at the root of its host',
    );
  });
});
