import { readFile } from 'node:fs/promises'
import { Type } from 'typebox'
import { credentialed, credentialOf, identityOf } from '../../../access/guard.js'
import type { CredentialStore } from '../../../access/store.js'
import type { RouteSpec } from '../../../http/route-spec.js'
import { sendRateLimitHeaders } from '../../../rate-limit/headers.js'
import type { RateLimiter } from '../../../rate-limit/limiter.js'
import { e2Errors, failures, rateLimited } from '../errors.js'

export interface ReportRouteOptions {
  credentials: CredentialStore
  limiter: RateLimiter
  /** The text `GET /laporan-penjualan` serves, read on every request. */
  salesReportFile: string
}

const Report = Type.Object({ data: Type.String() })

/** The name the RateLimit header fields give the `/laporan` policy. */
export const LAPORAN_POLICY = 'laporan'

const rateLimitHeaderDocs = {
  'RateLimit-Policy': {
    description: '`"laporan";q=<capacity>;w=<seconds to refill an empty bucket>`.',
    schema: Type.String(),
  },
  RateLimit: {
    description: '`"laporan";r=<whole tokens left>;t=<seconds until the bucket is full>`.',
    schema: Type.String(),
  },
}

export function reportRoutes(options: ReportRouteOptions): RouteSpec[] {
  const { credentials, limiter, salesReportFile } = options
  const laporan = credentialed(
    credentials,
    {
      method: 'GET',
      path: '/laporan',
      operationId: 'getLaporan',
      summary: 'A report; `X-API-Key` only, rate-limited per key by a token bucket.',
      description:
        'Checks in order: the `X-API-Key` (401; a Bearer token is not accepted here), the role ' +
        "policy (403), then a token of the key's bucket (429 with `Retry-After` when none is " +
        'left). Admitted answers carry `RateLimit` and `RateLimit-Policy`.',
      responses: {
        200: { description: 'The report.', schema: Report, headers: rateLimitHeaderDocs },
        429: failures.rateLimited(rateLimitHeaderDocs),
      },
      // The access hook has admitted a known key by now: only those spend tokens.
      async handler(request, reply) {
        const decision = await limiter.take(credentialOf(request).ref)
        sendRateLimitHeaders(reply, LAPORAN_POLICY, limiter.policy, decision)
        if (!decision.admitted) throw rateLimited(decision.retryAfterSeconds)
        return { data: `laporan untuk ${identityOf(request).nama}` }
      },
    },
    { apiKeyOnly: true },
  )

  const salesReport: RouteSpec = {
    method: 'GET',
    path: '/laporan-penjualan',
    operationId: 'getLaporanPenjualan',
    summary: 'The sales report: the text of the configured file.',
    description:
      'The whole text of `LAPORAN_PENJUALAN_FILE` in `data`, read on each request; a file that ' +
      'cannot be read is the generic 500, its cause in the log only.',
    responses: {
      200: { description: 'The file text.', schema: Report },
      500: failures.store[500],
    },
    async handler(request) {
      try {
        return { data: await readFile(salesReportFile, 'utf8') }
      } catch (error) {
        // The path and errno are for the operator; the client gets the generic 500.
        request.log.error(
          { err: error, file: salesReportFile },
          'laporan-penjualan: the report file cannot be read',
        )
        throw e2Errors.fromFramework({ kind: 'internal' })
      }
    },
  }

  return [laporan, salesReport]
}
