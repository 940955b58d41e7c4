import { createPrivateKey, X509Certificate } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { Config } from '../config.js'
import { StartUpError } from '../start-up-error.js'

/** What the listener needs to serve HTTPS, read and checked before it listens. */
export interface TlsFiles {
  cert: Buffer
  key: Buffer
}

/**
 * Reads TLS_CERT_FILE and TLS_KEY_FILE and checks that they can serve: a readable PEM
 * certificate, a readable PEM private key, and the key belonging to the certificate. Node itself
 * would accept a mismatched pair and fail every handshake later, so the pair is checked here.
 */
export async function loadTls(files: NonNullable<Config['tls']>): Promise<TlsFiles> {
  const cert = await readPem('TLS_CERT_FILE', files.certFile)
  const key = await readPem('TLS_KEY_FILE', files.keyFile)
  let certificate: X509Certificate
  try {
    certificate = new X509Certificate(cert)
  } catch (error) {
    throw new StartUpError(
      `TLS_CERT_FILE: ${files.certFile} is not a PEM certificate (${reason(error)})`,
    )
  }
  let privateKey: ReturnType<typeof createPrivateKey>
  try {
    privateKey = createPrivateKey(key)
  } catch (error) {
    throw new StartUpError(
      `TLS_KEY_FILE: ${files.keyFile} is not a PEM private key (${reason(error)})`,
    )
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new StartUpError(
      `TLS_KEY_FILE: ${files.keyFile} is not the private key of the certificate in ${files.certFile}`,
    )
  }
  return { cert, key }
}

async function readPem(name: string, path: string): Promise<Buffer> {
  try {
    return await readFile(path)
  } catch (error) {
    throw new StartUpError(`${name}: cannot read ${path} (${reason(error)})`)
  }
}

function reason(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string }
  return code ?? message?.split('\n')[0] ?? 'unknown error'
}
