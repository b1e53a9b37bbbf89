/**
 * The token of an `Authorization: Bearer <token>` header, or `undefined`. The scheme name is
 * case-insensitive (RFC 7235 §2.1): `bearer` and `BEARER` are the same scheme.
 */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const m = /^bearer +(.*)$/i.exec(header);
  const token = m?.[1]?.trim();
  return token ? token : undefined;
}
