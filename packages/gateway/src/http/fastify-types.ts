import 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which error vocabulary the route speaks. */
    api?: 'snap' | 'admin';
    /** SNAP service code of the operation (docs/protocol.md#conventions), used in every error it answers. */
    serviceCode?: string;
    /** Name of the operation in metrics. */
    operation?: string;
    /** Fields of an admin answer that are credentials (a portal link): the audit log keeps `<redacted>`. */
    auditRedacts?: readonly string[];
  }
}
