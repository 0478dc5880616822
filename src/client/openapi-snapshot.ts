/** The server the committed src/client/openapi.json names (clients pass their own base URL). */
export const OPENAPI_SNAPSHOT_SERVER = 'http://localhost:8080';
