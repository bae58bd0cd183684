export { adminKubeConfig, type AuditEvent, auditEvents, compactEtcd, containerLog, containerPid, createNamespace, helm, podDir, restartApiServer, testEnv } from './cluster-access.ts';
export { NETWORK, NODE_NAME } from './cluster-plan.ts';
export { ControlPlane, type ControlPlaneInfo } from './control-plane.ts';
export { makeServingCert } from './pki.ts';
export { runningCluster, TestCluster, type TestClusterInfo } from './test-cluster.ts';
export { helmBin, k8sBinDir, REPO_ROOT } from './tool-paths.ts';
