export { parseDockerfile, lintDockerfile, type DockerInstruction, type ParsedDockerfile } from './dockerfile-lint.ts';
export { repoRoot, chartDir, readChartFile, chartTemplates, type ChartTemplate } from './chart-files.ts';
export { appEnvReads, envReads } from './app-env.ts';
export { helmTemplate, helmNotes, parseManifests, runHelm, HelmError, KUBE_VERSION, RELEASE, type K8sObject, type Release, type RenderedChart } from './helm-template.ts';
export { valuesReferences, valuesPathExists, valuesLeaves, type ValuesReference } from './values-paths.ts';
