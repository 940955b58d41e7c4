// Checks a response received by a test against the published OpenAPI document.
// (Interface fixed here; the implementation is being written.)

export interface SeenRequest {
  method: string
  url: string
}

export interface SeenResponse {
  statusCode: number
  headers: Record<string, unknown>
  body: string
}

/**
 * Returns a checker bound to `document` (the body of GET /openapi.json). The checker throws an
 * AssertionError naming the request when the response does not match what the document says.
 */
export function conformanceChecker(
  _document: Record<string, unknown>,
): (request: SeenRequest, response: SeenResponse) => void {
  throw new Error('not implemented yet')
}
