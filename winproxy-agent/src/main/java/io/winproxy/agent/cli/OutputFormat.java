package io.winproxy.agent.cli;

/** {@code -o json|text}. */
public enum OutputFormat {
    json, text
}
