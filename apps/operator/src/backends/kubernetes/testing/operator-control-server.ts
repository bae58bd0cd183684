/**
 * The operator's control API (`/v1/executor/specialize`, …) on a loopback port, as the operator
 * binary serves it: for tests that run the operator in-process and call it as routers do.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubernetesFunctionOperator } from '../kube-function-operator.ts';

export interface OperatorControlServer {
  url: string;
  close(): void;
}

export async function serveOperatorControl(op: KubernetesFunctionOperator): Promise<OperatorControlServer> {
  const server = createServer((req, res) => {
    void op.handleControl(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
