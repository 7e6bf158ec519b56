package io.winproxy.hns.explain;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What {@link HnsExplainer} made of a document: its {@code kind} ({@code load-balancer}, {@code policy-list},
 * {@code endpoint}, {@code v1-endpoint}, {@code network}, {@code v1-network}, {@code error-record},
 * {@code hns-call}, {@code hns-version}, {@code query} or {@code list}), a readable multi-line {@code text} with
 * flags, protocols and HRESULTs by name, and the same as a structured summary {@code json} (for {@code -o json}).
 */
public record Explanation(String kind, String text, JsonNode json) {
}
