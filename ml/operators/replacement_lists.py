"""Precompiled replacements for named entities, per spaCy label (ParaQD f7).

Written for this project: common, culturally varied names of the kinds that appear in word
problems. Every list holds single- and multi-word entries so replacements vary in length.
"""
from __future__ import annotations

__all__ = ["ENTITY_REPLACEMENTS"]

ENTITY_REPLACEMENTS: dict[str, tuple[str, ...]] = {
    "PERSON": (
        "Sarah", "John", "Priya", "Ahmed", "Mei", "Carlos", "Fatima", "Liam", "Aisha", "Ravi", "Emma",
        "Kenji", "Olga", "Diego", "Chloe", "Kwame", "Anita", "Noah", "Yusuf", "Sofia", "Arjun", "Hannah",
        "Mateo", "Zara", "Tom", "Lucy", "Rahul", "Grace", "Ivan", "Nadia", "Peter", "Maria", "Ali",
        "Julia", "Sam", "Ben", "Mr. Sharma", "Mrs. Lee", "Dr. Brown", "Ms. Garcia",
    ),
    "GPE": (
        "London", "Paris", "Mumbai", "Delhi", "Tokyo", "Cairo", "Nairobi", "Lima", "Toronto", "Sydney",
        "Berlin", "Madrid", "Chicago", "Boston", "Dallas", "Seoul", "Bangkok", "Lagos", "Rome", "Oslo",
        "India", "France", "Japan", "Brazil", "Kenya", "Canada", "Mexico", "Egypt", "Texas", "California",
        "New York", "Los Angeles", "Cape Town", "Buenos Aires", "Hong Kong",
    ),
    "ORG": (
        "Acme Corp", "the City Council", "Global Bank", "Sunrise School", "the Red Cross", "Apex Motors",
        "Green Farms", "the National Library", "Star Airlines", "Metro Rail", "Blue Ocean Shipping",
        "Lakeside College", "the Post Office", "Unity Hospital", "Bright Foods", "the Science Club",
        "Northwind Traders", "Harbor Bakery", "Summit Insurance", "the Chess Club",
    ),
    "NORP": (
        "Indian", "French", "Japanese", "Brazilian", "Kenyan", "Canadian", "Mexican", "Egyptian", "German",
        "Italian", "Chinese", "Nigerian", "Spanish", "Russian", "Korean", "Australian", "American", "British",
        "Peruvian", "Swedish",
    ),
    "LOC": (
        "the Nile", "the Amazon", "the Alps", "the Himalayas", "the Sahara", "the Pacific", "the Atlantic",
        "Lake Victoria", "the Andes", "the Rhine", "the Ganges", "the Rockies", "the Gobi", "the Danube",
        "the Arctic",
    ),
    "FAC": (
        "the Golden Gate Bridge", "the Eiffel Tower", "Central Station", "the city stadium", "the airport",
        "the town hall", "Tower Bridge", "the harbour", "the museum", "the main library", "Victoria Station",
        "the old fort", "the bus depot", "the shopping mall", "the Grand Hotel",
    ),
    "PRODUCT": (
        "a laptop", "a bicycle", "a smartphone", "a television", "a camera", "a scooter", "a tablet",
        "a microwave", "a printer", "a watch", "Boeing 747", "Model T", "iPhone", "Walkman", "PlayStation",
    ),
}
