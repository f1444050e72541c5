namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// CPU of one stack tag by whose time it was: the innermost code frame (<paramref name="Caller"/>, the serializer's or
/// your method) and the core-library or reflection API it called (<paramref name="Api"/>; null in the code's own body).
/// <paramref name="Outer"/> is the next code frame above the caller of another type (who used the caller), where
/// there is one. A run's sites add up to its tags: each sample is in one site, at the weight its tag has. An object,
/// not a struct: the charge makes one per distinct site and tables of it run the framework's precompiled code.
/// </summary>
public sealed record TagSite(string Tag, CodeSite? Api, CodeSite? Caller, CodeSite? Outer);
