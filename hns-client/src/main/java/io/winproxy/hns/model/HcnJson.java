package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The Jackson configuration for HCN documents: case-insensitive members and enums, unknown members ignored,
 * zero and empty members omitted on output (as HNS does). Also copes with PowerShell {@code ConvertTo-Json}, which
 * writes a one-element array as the bare element: a single value is accepted where a list is expected.
 */
public final class HcnJson {
    private HcnJson() {
    }

    /** A new mapper configured for HCN documents. Mappers are thread-safe; callers keep one. */
    public static ObjectMapper newMapper() {
        return JsonMapper.builder()
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
                .serializationInclusion(JsonInclude.Include.NON_DEFAULT)
                .build();
    }
}
