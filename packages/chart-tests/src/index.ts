export { splitTemplate, templateActions, TemplateSyntaxError, type TemplateAction, type TemplatePiece } from './template-actions.ts';
export { balanceProblems, valuesReferences, valuesPathExists, definedTemplates, includedTemplates, type ValuesReference } from './template-structure.ts';
export { parseDockerfile, lintDockerfile, type DockerInstruction, type ParsedDockerfile } from './dockerfile-lint.ts';
export { repoRoot, chartDir, readChartFile, chartTemplates, type ChartTemplate } from './chart-files.ts';
export { appEnvReads, envReads } from './app-env.ts';
